// A client that calls as soon as `npm start`'s port takes connections (a process manager's
// TCP check, `wait-on tcp:…`) gets its answer, not a 401 for the PETSTORE_API_KEY it gave
// the server: the server listens before that key is registered, and holds what comes
// meanwhile. The registration is slowed here (slow-key-writes.ts) so that the call lands in
// that moment every time.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { resolve } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { newDataDir, npmScriptCommand } from '../../tools/harness/local-server.ts';

const dataDirs: string[] = [];
afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

const freePort = () =>
  new Promise<number>((done) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => done(port));
    });
  });
const accepts = (port: number) =>
  new Promise<boolean>((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => done(socket.destroy() !== undefined));
    socket.once('error', () => done(false));
  });

const key = `pet_${'k'.repeat(40)}`;

/** `npm start`'s server on a new data directory, its key's registration slowed; what it has printed. */
const startSlowed = (port: number, entry = 'infra/local/server.ts') => {
  const dataDir = newDataDir();
  dataDirs.push(dataDir);
  const node = npmScriptCommand(
    entry,
    {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      PETSTORE_DATA_DIR: dataDir,
      PETSTORE_API_KEY: key,
      PETSTORE_TEST_KEY_WRITE_DELAY_MS: '1500',
      LOG_LEVEL: 'WARN',
    },
    { nodeArgs: ['--import', resolve('test/support/slow-key-writes.ts')] },
  );
  const server = spawn(node.file, node.args, { env: node.env, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  server.stdout.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    server.once('exit', (code, signal) => done({ code, signal })),
  );
  return { server, exited, output: () => output };
};
const waitForPort = async (port: number) => {
  while (!(await accepts(port))) await new Promise((r) => setTimeout(r, 10));
};

// `npm run dev` listens first too, then opens the data and loads its first generation of the code.
const ENTRIES = ['infra/local/server.ts', 'infra/local/dev.ts'];

test.each(ENTRIES)(
  '%s: a call made as soon as the port takes connections is answered with the key it was given',
  async (entry) => {
    const port = await freePort();
    const { server, exited, output } = startSlowed(port, entry);
    try {
      await waitForPort(port);
      const printedBeforeTheCall = output();
      const response = await fetch(`http://127.0.0.1:${port}/v1/pets`, { headers: { Authorization: `Bearer ${key}` } });
      expect(printedBeforeTheCall).not.toContain(key); // the call came before the banner, in the moment
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual([]);
    } finally {
      server.kill('SIGTERM');
      await exited;
    }
  },
  30_000,
);

// The contract's clean stop holds from the first moment: a process manager may stop the server
// while it is still starting, with a request already received.
test.each(ENTRIES)(
  '%s: a SIGTERM while it starts answers the request it holds, then stops cleanly',
  async (entry) => {
    const port = await freePort();
    const { server, exited, output } = startSlowed(port, entry);
    try {
      await waitForPort(port);
      const held = fetch(`http://127.0.0.1:${port}/v1/pets`, { headers: { Authorization: `Bearer ${key}` } });
      await new Promise((r) => setTimeout(r, 200)); // the request is in, held for the key
      expect(output()).not.toContain(key);
      server.kill('SIGTERM');
      const response = await held;
      expect(response.status).toBe(200);
      expect(await exited).toEqual({ code: 0, signal: null });
      expect(output()).toContain('stopped');
    } finally {
      server.kill('SIGKILL');
    }
  },
  30_000,
);
