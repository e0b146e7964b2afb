// A lock left by a process that died names a PID that another process may have since (after a
// reboot, likely). Such a lock is stale: it must neither block the next start nor lead the key
// tool to the ports it names, which another user may have bound (a revoke would then "succeed"
// without landing). The lock records when its process started (proc(5): /proc/<pid>/stat field
// 22, with the boot's id), and the key tool writes only through the server's Unix socket in a
// directory that is its user's alone.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { processStart } from '../../infra/local/data-dir.ts';
import { newDataDir } from '../../tools/harness/local-server.ts';
import { call, disposeServer, keyTool, startServer } from './support.ts';

const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A live process that is not the lock's writer: the PID the lock names, reused. */
const reusedPid = (): number => {
  const child: ChildProcess = spawn('sleep', ['60'], { stdio: 'ignore' });
  cleanups.push(() => child.kill('SIGKILL'));
  return child.pid!;
};

/** An HTTP server that answers every request 200 `{}` and counts them: someone else's port or socket. */
const impostor = async (where: number | string): Promise<{ server: Server; requests: () => number }> => {
  let requests = 0;
  const server = createServer((req, res) => {
    requests += 1;
    req.resume();
    res.writeHead(200, { 'Content-Type': 'application/x-amz-json-1.0' }).end('{}');
  });
  await new Promise<void>((resolve) =>
    typeof where === 'number' ? server.listen(where, '127.0.0.1', resolve) : server.listen(where, resolve),
  );
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return { server, requests: () => requests };
};
const portOf = (server: Server) => (server.address() as AddressInfo).port;

const dataDirWithLock = (lock: object): string => {
  const dir = newDataDir();
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  chmodSync(dir, 0o700);
  writeFileSync(join(dir, 'owner.lock'), JSON.stringify(lock), { mode: 0o600 });
  return dir;
};

test('the lock records when its process started', () => {
  expect(processStart(process.pid)).toMatch(/^[0-9a-f-]{36}\/\d+$/);
});

test('a lock whose PID another process now has does not stop the next start', async () => {
  const dir = dataDirWithLock({ pid: reusedPid(), started: 'an-earlier-boot/4242', owner: 'server' });
  const server = await startServer({ PETSTORE_DATA_DIR: dir });
  try {
    expect((await call(server, '/pets')).status).toBe(200);
  } finally {
    await disposeServer(server);
  }
}, 60_000);

test('the key tool sends nothing to the ports of a lock whose PID was reused: it opens the directory itself', async () => {
  const other = await impostor(0);
  const dir = dataDirWithLock({
    pid: reusedPid(),
    started: 'an-earlier-boot/4242',
    owner: 'server',
    dynamodbAddress: `http://127.0.0.1:${portOf(other.server)}`,
    managementEndpoint: `http://127.0.0.1:${portOf(other.server)}`,
  });
  writeFileSync(join(dir, 'dynamodb-secret'), 'a secret of the dead server', { mode: 0o600 });
  const created = await keyTool(dir, 'create', '--label', 'after a reboot');
  expect(created.code, created.stderr).toBe(0);
  const keyId = /\b(key_[0-9A-Za-z]+)/.exec(created.stdout)![1]!;
  const revoked = await keyTool(dir, 'revoke', keyId);
  expect(revoked.code, revoked.stderr).toBe(0);
  expect(other.requests(), 'requests the other port received').toBe(0);
  const listed = await keyTool(dir, 'list');
  expect(listed.stdout).toMatch(new RegExp(`${keyId}.*revoked`, 's'));
}, 60_000);

test("the key tool writes nothing through a live owner's socket that another user could have made", async () => {
  const owner = reusedPid(); // its start time is recorded: it is the lock's owner
  const tcp = await impostor(0);
  const shared = mkdtempSync(join(tmpdir(), 'petstore-shared-'));
  cleanups.push(() => rmSync(shared, { recursive: true, force: true }));
  chmodSync(shared, 0o755); // a directory others may enter: anyone's socket could be there
  const socketPath = join(shared, 'dynamodb.sock');
  const socket = await impostor(socketPath);
  const dir = dataDirWithLock({
    pid: owner,
    started: processStart(owner),
    owner: 'server',
    dynamodbAddress: `http://127.0.0.1:${portOf(tcp.server)}`,
    dynamodbSocket: socketPath,
  });
  writeFileSync(join(dir, 'dynamodb-secret'), 'a secret', { mode: 0o600 });
  const created = await keyTool(dir, 'create', '--label', 'to the wrong store');
  expect(created.code).not.toBe(0);
  expect(created.stderr).toMatch(/restart the local server/);
  expect(tcp.requests() + socket.requests(), 'requests the other store received').toBe(0);
}, 60_000);
