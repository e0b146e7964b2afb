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
import { newDataDir, npmScriptFlags } from '../../tools/harness/local-server.ts';

const dataDir = newDataDir();
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

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

test('a call made as soon as the port takes connections is answered with the key it was given', async () => {
  const port = await freePort();
  const key = `pet_${'k'.repeat(40)}`;
  const server = spawn(
    process.execPath,
    [
      ...npmScriptFlags('infra/local/server.ts'),
      '--import',
      resolve('test/support/slow-key-writes.ts'),
      'infra/local/server.ts',
    ],
    {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        PETSTORE_DATA_DIR: dataDir,
        PETSTORE_API_KEY: key,
        PETSTORE_TEST_KEY_WRITE_DELAY_MS: '1500',
        LOG_LEVEL: 'WARN',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let output = '';
  server.stdout.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  try {
    while (!(await accepts(port))) await new Promise((r) => setTimeout(r, 10));
    const printedBeforeTheCall = output;
    const response = await fetch(`http://127.0.0.1:${port}/v1/pets`, { headers: { Authorization: `Bearer ${key}` } });
    expect(printedBeforeTheCall).not.toContain(key); // the call came before the banner, in the moment
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([]);
  } finally {
    server.kill('SIGTERM');
    await new Promise((done) => server.once('exit', done));
  }
}, 30_000);
