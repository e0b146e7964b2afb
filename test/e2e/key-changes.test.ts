// Who changed a key, when and why (the contract: each change to a key records who made it, the
// OS user locally, when, and an optional --reason; `keys list` and `--json` show the last change
// of each), and what the key tool says of an overlap of 0 and of a cache when no server runs.
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type LocalServer, newDataDir } from '../../tools/harness/local-server.ts';
import { bearer, call, disposeServer, startServer } from './support.ts';

vi.setConfig({ testTimeout: 120_000 });

/** `npm run keys` without npm's own start-up. */
const keyTool = (dataDir: string, ...args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      ['tools/keys/cli.ts', ...args],
      { env: { ...process.env, PETSTORE_DATA_DIR: dataDir } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    ),
  );

interface Change {
  action: string;
  by: string;
  at: string;
  reason?: string;
}
type Listed = { keyId: string; lastChange: Change | null; changes: Change[]; state: string };

const listJson = async (dataDir: string): Promise<Listed[]> => {
  const listed = await keyTool(dataDir, 'list', '--json');
  expect(listed.code, listed.stderr).toBe(0);
  return JSON.parse(listed.stdout) as Listed[];
};
const keyIdOf = (stdout: string, nth = 0) => [...stdout.matchAll(/\b(key_[0-9A-Za-z]+)/g)][nth]![1]!;

// Who the contract means by "the OS user": the account this test runs as, by its passwd name.
const ME = userInfo().username;
/** Within the minutes around now: a record's time is the change's, not some other. */
const recent = (iso: string, since: number) => Date.parse(iso) >= since - 1000 && Date.parse(iso) <= Date.now() + 1000;

describe('with the server running', () => {
  let server: LocalServer;
  beforeAll(async () => {
    server = await startServer({ PETSTORE_AUTHORIZER_CACHE_TTL: '300' });
  });
  afterAll(() => disposeServer(server));

  it('create, rotate and revoke each record who (the OS user), when and --reason; list shows the last', async () => {
    const since = Date.now();
    const created = await keyTool(server.dataDir, 'create', '--label', 'billing', '--reason', 'ticket OPS-12');
    expect(created.code, created.stderr).toBe(0);
    const first = keyIdOf(created.stdout);
    let entry = (await listJson(server.dataDir)).find((e) => e.keyId === first)!;
    expect(entry.lastChange).toMatchObject({ action: 'created', by: ME, reason: 'ticket OPS-12' });
    expect(recent(entry.lastChange!.at, since)).toBe(true);

    const rotated = await keyTool(server.dataDir, 'rotate', first, '--reason', 'yearly rotation');
    expect(rotated.code, rotated.stderr).toBe(0);
    const second = keyIdOf(rotated.stdout, 1);
    const listed = await listJson(server.dataDir);
    entry = listed.find((e) => e.keyId === first)!;
    expect(entry.lastChange).toMatchObject({ action: 'rotated', by: ME, reason: 'yearly rotation' });
    expect(entry.changes.map((c) => c.action)).toEqual(['created', 'rotated']);
    expect(listed.find((e) => e.keyId === second)!.lastChange).toMatchObject({
      action: 'created',
      by: ME,
      reason: 'yearly rotation',
    });

    const revoked = await keyTool(server.dataDir, 'revoke', second, '--reason', 'leaked in a CI log');
    expect(revoked.code, revoked.stderr).toBe(0);
    // Revoking again changes nothing, its record included: the first revocation stands.
    expect((await keyTool(server.dataDir, 'revoke', second, '--reason', 'again')).code).toBe(0);
    entry = (await listJson(server.dataDir)).find((e) => e.keyId === second)!;
    expect(entry.changes.map((c) => c.action)).toEqual(['created', 'revoked']);
    expect(entry.lastChange).toMatchObject({ action: 'revoked', by: ME, reason: 'leaked in a CI log' });

    // The table says the same, in a column of its own.
    const table = await keyTool(server.dataDir, 'list');
    expect(table.stdout.split('\n')[0]).toMatch(/LAST CHANGE$/);
    const row = table.stdout.split('\n').find((line) => line.startsWith(second))!;
    expect(row).toMatch(new RegExp(`revoked \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\dZ by ${ME}: "leaked in a CI log"$`));
  });

  it('a change without --reason records who and when; the development key records its start', async () => {
    const created = await keyTool(server.dataDir, 'create', '--label', 'no reason given');
    const keyId = keyIdOf(created.stdout);
    const listed = await listJson(server.dataDir);
    const entry = listed.find((e) => e.keyId === keyId)!;
    expect(entry.lastChange!.by).toBe(ME);
    expect(entry.lastChange).not.toHaveProperty('reason');
    const development = listed.find((e) => e.keyId === /API key \((key_\w+)\)/.exec(server.output())![1])!;
    expect(development.lastChange).toMatchObject({ action: 'created', by: ME, reason: 'npm start: first start' });
  });

  it('rotate --overlap 0 says the old key has expired and how long a cached answer may still let it in', async () => {
    const old = keyIdOf((await keyTool(server.dataDir, 'create', '--label', 'cut over now')).stdout);
    const rotated = await keyTool(server.dataDir, 'rotate', old, '--overlap', '0');
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout).not.toMatch(/keeps working until/);
    expect(rotated.stdout).toContain(`${old} has expired`);
    // The server's cache TTL is 300 s: 5 minutes, and how to shut it out at once.
    expect(rotated.stdout).toMatch(/for up to 5 minute/);
    expect(rotated.stdout).toContain(`npm run keys -- revoke ${old}`);
  });
});

describe('with no server running', () => {
  const dataDir = newDataDir();
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('list never says a cached answer may accept an expired key: no server, no cache', async () => {
    // A key used through a server with a cache, expired, then the server stopped.
    const server = await startServer({ PETSTORE_DATA_DIR: dataDir, PETSTORE_AUTHORIZER_CACHE_TTL: '300' });
    const made = await keyTool(dataDir, 'create', '--label', 'short-lived', '--expires', '3s');
    const key = /\b(pet_[0-9A-Za-z]+)/.exec(made.stdout)![1]!;
    const keyId = keyIdOf(made.stdout);
    expect((await call(server, '/pets', { authorization: bearer(key) })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 3500));
    // With the server running, its cache may still hold the answer: the list says so.
    const running = (await keyTool(dataDir, 'list')).stdout;
    expect(running.split('\n').find((line) => line.startsWith(keyId))).toMatch(/cached: may be accepted until/);
    await server.stop();

    const stopped = await keyTool(dataDir, 'list', '--json');
    expect(stopped.code, stopped.stderr).toBe(0);
    const entry = (JSON.parse(stopped.stdout) as Array<Record<string, unknown>>).find((e) => e.keyId === keyId)!;
    expect(entry).toMatchObject({ state: 'expired', mayBeAcceptedUntil: null });
    expect((await keyTool(dataDir, 'list')).stdout).not.toMatch(/cached: may be accepted/);
  });
});
