// The embedded DynamoDB's Unix socket: the server's functions and the key tool reach the store
// through it, and the file system is its check (infra/local/dynamodb-socket.ts), as for
// PostgreSQL's socket: it lies in the data directory, which is its user's alone (0700), so
// another user cannot connect to it, and no request on it pays for a signature check.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ownSocket } from '../../infra/local/dynamodb-socket.ts';
import { type EmbeddedDynamoDB, startEmbeddedDynamoDB } from '../../infra/local/embedded-dynamodb.ts';
import { localClientConfig } from '../../infra/local/function-environment.ts';
import { newDataDir } from '../../tools/harness/local-server.ts';

const dataDir = newDataDir();
let dynamodb: EmbeddedDynamoDB;

beforeAll(async () => {
  chmodSync(dataDir, 0o700); // as lockDataDir leaves it
  dynamodb = await startEmbeddedDynamoDB(dataDir);
});
afterAll(async () => {
  await dynamodb.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * A Node binary `uid` may run: this one, unless the checkout lies in a directory only its owner
 * may enter (a clone under /root, or in a `mktemp -d`: spawning the project's Node from
 * node_modules as another user fails with EACCES), else the first `node` on PATH it may run.
 */
const nodeFor = (uid: number): string | undefined =>
  [process.execPath, ...(process.env.PATH ?? '').split(':').map((dir) => join(dir, 'node'))].find(
    (node) => spawnSync(node, ['-e', ''], { uid, gid: uid, timeout: 10_000 }).status === 0,
  );

/** Another user's attempt to connect to `path` (uid and gid 65534, nobody): what connect(2) said. */
const connectAs = (node: string, uid: number, path: string): string =>
  spawnSync(
    node,
    [
      '-e',
      `require('node:net').connect(process.argv[1]).on('connect', () => { console.log('connected'); process.exit(0) })
         .on('error', (e) => { console.log(e.code); process.exit(0) })`,
      path,
    ],
    { uid, gid: uid, encoding: 'utf8', timeout: 10_000 },
  ).stdout.trim();

test('the socket is in the data directory, and answers its user', async () => {
  expect(dynamodb.socket).toBe(join(dataDir, 'dynamodb.sock'));
  expect(ownSocket(dynamodb.socket!)).toBe(true);
  // With a made-up secret: on the socket, the file system has already checked the caller.
  const url = new URL(dynamodb.endpoint);
  url.password = 'made-up';
  const client = new DynamoDBClient({ ...localClientConfig(url.href), maxAttempts: 1 });
  try {
    await expect(client.send(new ListTablesCommand({}))).resolves.toMatchObject({ TableNames: [] });
  } finally {
    client.destroy();
  }
});

// Run as root (this project's machines and CI are), the test can be another user, with a Node
// that user may run; otherwise it checks what the kernel checks for it: the directory's and the
// socket's owner and modes.
test("another user's connection to the socket is refused", () => {
  const socket = dynamodb.socket!;
  const node = process.getuid?.() === 0 ? nodeFor(65534) : undefined;
  if (node) {
    expect(connectAs(node, 0, socket), 'the same connection as its user').toBe('connected');
    expect(connectAs(node, 65534, socket)).toBe('EACCES');
  } else {
    expect(lstatSync(dataDir).mode & 0o077).toBe(0);
    expect(lstatSync(socket).uid).toBe(process.getuid?.());
  }
});

test('a socket in a directory others may enter is not taken for the server’s', () => {
  const open = join(dataDir, 'open');
  mkdirSync(open, { mode: 0o755 });
  chmodSync(open, 0o755);
  expect(ownSocket(join(open, 'dynamodb.sock'))).toBe(false); // none there
  expect(ownSocket(join(dataDir, 'owner.lock'))).toBe(false); // not a socket
  rmSync(open, { recursive: true });
});

test('a data directory too deep for a socket path gets a private one elsewhere, removed at the stop', async () => {
  const base = newDataDir();
  const deep = join(base, 'a'.repeat(60), 'b'.repeat(60));
  mkdirSync(deep, { recursive: true, mode: 0o700 });
  const store = await startEmbeddedDynamoDB(deep);
  const socket = store.socket!;
  try {
    expect(socket.startsWith(deep)).toBe(false);
    expect(lstatSync(dirname(socket)).mode & 0o777).toBe(0o700);
    expect(ownSocket(socket)).toBe(true);
    const client = new DynamoDBClient({ ...localClientConfig(store.endpoint), maxAttempts: 1 });
    await expect(client.send(new ListTablesCommand({}))).resolves.toMatchObject({ TableNames: [] });
    client.destroy();
  } finally {
    await store.close();
    rmSync(base, { recursive: true, force: true }); // the test's own directory, nothing above it
  }
  expect(existsSync(dirname(socket))).toBe(false);
});
