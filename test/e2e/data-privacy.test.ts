// The local stage's data is its user's alone (docs/api.md, "Local server and key tool"):
// the data directory and every file in it, LevelDB's included, are readable by their
// owner only, and nothing the server listens on lets a caller without the credential
// read or write the tables (another local user could otherwise mint or un-revoke keys).
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient, ListTablesCommand, PutItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { keysTable } from '../../shared/dynamodb/tables.ts';
import { type LocalServer, newDataDir } from '../../tools/harness/local-server.ts';
import { createPet, disposeServer, keyTool, startServer } from './support.ts';

/** Every path under `dir` (itself included) with its permission bits. */
const modes = (dir: string): Array<{ path: string; mode: number; directory: boolean }> => {
  const stat = lstatSync(dir);
  const own = { path: dir, mode: stat.mode & 0o777, directory: stat.isDirectory() };
  if (!stat.isDirectory()) return [own];
  return [own, ...readdirSync(dir).flatMap((name) => modes(join(dir, name)))];
};

/** The TCP ports `pid` listens on (Linux: its socket inodes, matched in /proc/net/tcp{,6}). */
const listeningPorts = (pid: number): number[] => {
  const inodes = new Set(
    readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? [];
      } catch {
        return []; // closed meanwhile
      }
    }),
  );
  const ports = ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((table) =>
    readFileSync(table, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((columns) => columns[3] === '0A' && inodes.has(columns[9]!)) // 0A: LISTEN
      .map((columns) => Number.parseInt(columns[1]!.split(':')[1]!, 16)),
  );
  return [...new Set(ports)];
};

/** What another local user would try: the SDK with made-up credentials, no retries. */
const outsider = (port: number) =>
  new DynamoDBClient({
    endpoint: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });

const onLinux = existsSync('/proc/net/tcp');
let server: LocalServer;
const dataDir = newDataDir();

beforeAll(async () => {
  // A data directory from before: open to everyone, with a file readable by all.
  chmodSync(dataDir, 0o755);
  writeFileSync(join(dataDir, 'notes.txt'), 'kept by its user', { mode: 0o644 });
  chmodSync(join(dataDir, 'notes.txt'), 0o644);
  server = await startServer({ PETSTORE_DATA_DIR: dataDir });
  await createPet(server, { name: 'Rex', categoryId: 1 }); // LevelDB writes its files
});
afterAll(() => disposeServer(server));

describe('the data directory', () => {
  test('is its owner’s only: the directory 0700, every file in it (LevelDB’s too) without group or other bits', () => {
    const all = modes(dataDir);
    expect(all.some((entry) => entry.path.includes(`${join(dataDir, 'dynamodb')}/`) && !entry.directory)).toBe(true);
    expect(all.filter((entry) => entry.mode & 0o077).map((e) => `${e.path} ${e.mode.toString(8)}`)).toEqual([]);
    expect(lstatSync(dataDir).mode & 0o777).toBe(0o700);
  });

  test('the lock file names no credential', () => {
    const lock = readFileSync(join(dataDir, 'owner.lock'), 'utf8');
    const secrets = readdirSync(dataDir).filter((n) => /secret|token|key/.test(n));
    expect(secrets).toEqual(expect.arrayContaining(['development-key', 'dynamodb-secret']));
    for (const name of secrets) {
      const secret = readFileSync(join(dataDir, name), 'utf8').trim();
      expect(lock, name).not.toContain(secret);
    }
  });
});

describe.runIf(onLinux)('nothing the server listens on gives the data away without a credential', () => {
  test('no port it listens on answers DynamoDB calls signed with a made-up credential', async () => {
    const ports = listeningPorts(server.process.pid!);
    expect(ports).toContain(Number(new URL(server.baseUrl).port));
    expect(ports.length).toBeGreaterThan(1); // the API and what stands behind it (embedded DynamoDB, management)
    const hash = createHash('sha256').update('pet_outsider').digest('hex');
    for (const port of ports) {
      const client = outsider(port);
      try {
        await expect(client.send(new ListTablesCommand({})), `port ${port}`).rejects.toThrow();
        await expect(client.send(new ScanCommand({ TableName: keysTable.name })), `port ${port}`).rejects.toThrow();
        await expect(
          client.send(
            new PutItemCommand({ TableName: keysTable.name, Item: { [keysTable.partitionKey.name]: { S: hash } } }),
          ),
          `port ${port}`,
        ).rejects.toThrow();
      } finally {
        client.destroy();
      }
    }
  });
});

describe('the key tool', () => {
  test('keeps what it makes private, through the running server and on its own', async () => {
    const created = await keyTool(dataDir, 'create', '--label', 'privacy test (server running)');
    expect(created.code, created.stderr).toBe(0);
    await server.stop();
    const alone = await keyTool(dataDir, 'create', '--label', 'privacy test (server stopped)');
    expect(alone.code, alone.stderr).toBe(0);
    expect(modes(dataDir).filter((entry) => entry.mode & 0o077)).toEqual([]);
  });
});
