// Keys as the contract's Authentication section issues them, over HTTP and the key tool:
// scope (a read key's create is the gateway's 403), expiry (401), rotation with an overlap,
// last use and the new `keys list` columns, and RateLimit-Policy on the operations'
// answers. The authorizer cache is off (TTL 0) so that expiry shows at once; the cache
// window itself is the deployed TTL's, documented in docs/keys.md.
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { routes } from '../../shared/api/routes.ts';
import type { LocalServer } from '../../tools/harness/local-server.ts';
import { sampleRequests } from '../../tools/harness/sample-requests.ts';
import { bearer, call, callSample, disposeServer, expectError, KEY_FORMAT, postPet, startServer } from './support.ts';

const POLICY = '"burst";q=40;w=1, "steady";q=20;w=1, "daily";q=100000;w=86400';

// Each test runs the key tool a few times: a loaded machine needs more than the default 30 s.
vi.setConfig({ testTimeout: 120_000 });

const LIMITS = { PETSTORE_KEY_RATE: '20', PETSTORE_KEY_BURST: '40', PETSTORE_KEY_QUOTA: '100000' };

let server: LocalServer;
const saved = { ...process.env };
beforeAll(async () => {
  server = await startServer({ PETSTORE_AUTHORIZER_CACHE_TTL: '0', ...LIMITS });
  // The key tool's `list` reads the limits from its own environment, as the server's shell has them.
  Object.assign(process.env, LIMITS);
});
afterAll(async () => {
  process.env = saved;
  await disposeServer(server);
});

/**
 * The key tool as `npm run keys` runs it, without npm's own start-up (each run here is a new
 * Node process: on a loaded machine, npm's seconds add up over a dozen runs).
 */
const keyTool = (dataDir: string, ...args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      ['tools/keys/cli.ts', ...args],
      { env: { ...process.env, PETSTORE_DATA_DIR: dataDir } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    ),
  );

const keyFrom = (stdout: string) => /\b(pet_[0-9A-Za-z]+)/.exec(stdout)?.[1];
const keyIdsFrom = (stdout: string) => [...stdout.matchAll(/\b(key_[0-9A-Za-z]+)/g)].map((m) => m[1]!);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const create = async (...args: string[]) => {
  const result = await keyTool(server.dataDir, 'create', ...args);
  expect(result.code, result.stderr).toBe(0);
  const key = keyFrom(result.stdout);
  const keyId = keyIdsFrom(result.stdout)[0];
  expect(key, result.stdout).toMatch(KEY_FORMAT);
  expect(keyId, result.stdout).toMatch(/^key_[0-9A-Za-z]+$/);
  return { key: key!, keyId: keyId!, stdout: result.stdout };
};

const listJson = async () => {
  const listed = await keyTool(server.dataDir, 'list', '--json');
  expect(listed.code, listed.stderr).toBe(0);
  return JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
};

describe('scope', () => {
  it('a read key lists and gets; its create is 403 FORBIDDEN with the Error body, and nothing is created', async () => {
    const writer = await create('--label', 'writer');
    const created = await postPet<{ id: number }>(
      server,
      { name: 'Rex', categoryId: 1 },
      { authorization: bearer(writer.key) },
    );
    expect(created.status).toBe(201);
    const reader = await create('--label', 'dashboard', '--scope', 'read');
    expect(reader.stdout).toContain('scope: read');
    const auth = { authorization: bearer(reader.key) };

    expect((await call(server, '/pets', auth)).status).toBe(200);
    expect((await call(server, `/pets/${created.body.id}`, auth)).status).toBe(200);
    const before = (await call<unknown[]>(server, '/pets?limit=100')).body.length;
    const refused = await postPet(server, { name: 'Nope', categoryId: 1 }, auth);
    expectError(refused, 403, 'FORBIDDEN', [reader.key]);
    // The gateway's own answer: its headers cannot come from the authorizer's context (AWS).
    expect(refused.headers.get('ratelimit-policy')).toBeNull();
    // The function never ran: no animal, however the same route answers the write key.
    expect((await call<unknown[]>(server, '/pets?limit=100')).body.length).toBe(before);
    // Asked for the POST first, the one cached policy still allows the GETs (deployed caches per token).
    const second = await create('--label', 'dashboard 2', '--scope', 'read');
    expectError(
      await postPet(server, { name: 'Nope', categoryId: 1 }, { authorization: bearer(second.key) }),
      403,
      'FORBIDDEN',
    );
    expect((await call(server, '/pets', { authorization: bearer(second.key) })).status).toBe(200);
  });

  it('a read key may call the operations its route entries mark read, and every other is 403 (the route table)', async () => {
    const reader = await create('--label', 'reader of every route', '--scope', 'read');
    // The samples that read an animal read the first one created (the first test's).
    for (const { operationId, scope } of routes) {
      const { valid } = sampleRequests[operationId];
      const reply = await callSample(server, operationId, valid, { authorization: bearer(reader.key) });
      if (scope === 'read') expect(reply.status, operationId).toBe(valid.status);
      else expectError(reply, 403, 'FORBIDDEN', [reader.key]);
    }
  });

  it('a key created without --scope is a write key', async () => {
    const { key, stdout } = await create('--label', 'default scope');
    expect(stdout).toContain('scope: write');
    expect((await postPet(server, { name: 'Ok', categoryId: 2 }, { authorization: bearer(key) })).status).toBe(201);
  });

  it('the key tool refuses a scope that is neither read nor write', async () => {
    const result = await keyTool(server.dataDir, 'create', '--label', 'x', '--scope', 'admin');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/--scope admin: use read or write/);
  });
});

describe('expiry', () => {
  it('a key works until it expires, then is 401 like a revoked key', async () => {
    const { key, stdout } = await create('--label', 'short-lived', '--expires', '8s');
    const expiresAt = Date.parse(/expires (\S+?)\)/.exec(stdout)![1]!);
    expect((await call(server, '/pets', { authorization: bearer(key) })).status).toBe(200);
    expect(Date.now(), 'the check above ran before the expiry').toBeLessThan(expiresAt);
    await sleep(Math.max(0, expiresAt - Date.now()) + 200);
    expectError(await call(server, '/pets', { authorization: bearer(key!) }), 401, 'UNAUTHORIZED', [key!]);
  });

  it('takes a date, warns of one in the past, and refuses one that is not a date', async () => {
    const { keyId } = await create('--label', 'dated', '--expires', '2099-03-01');
    expect((await listJson()).find((k) => k.keyId === keyId)?.expiresAt).toBe('2099-03-01T00:00:00.000Z');
    const past = await keyTool(server.dataDir, 'create', '--label', 'born expired', '--expires', '2020-01-01');
    expect(past.code, past.stderr).toBe(0);
    expect(past.stderr).toMatch(/in the past: the key is refused from the start/);
    const key = keyFrom(past.stdout);
    expect(key, past.stdout).toMatch(KEY_FORMAT);
    expectError(await call(server, '/pets', { authorization: bearer(key!) }), 401, 'UNAUTHORIZED', [key!]);
    for (const value of ['2027-02-30', 'soon', '90 days']) {
      const result = await keyTool(server.dataDir, 'create', '--label', 'x', '--expires', value);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/give a date/);
    }
  });
});

describe('rotation', () => {
  it('gives two working keys until the overlap ends, then only the new one', async () => {
    const old = await create('--label', 'billing', '--scope', 'read');
    const rotatedAt = Date.now();
    // Long enough for the checks below on a loaded machine (each key tool run starts npm and Node).
    const rotated = await keyTool(server.dataDir, 'rotate', old.keyId, '--overlap', '10s');
    expect(rotated.code, rotated.stderr).toBe(0);
    const fresh = keyFrom(rotated.stdout)!;
    const [, newKeyId] = keyIdsFrom(rotated.stdout);
    expect(fresh).not.toBe(old.key);
    for (const key of [old.key, fresh])
      expect((await call(server, '/pets', { authorization: bearer(key) })).status).toBe(200);
    // Same scope: the new key may read, not write.
    expectError(
      await postPet(server, { name: 'x', categoryId: 1 }, { authorization: bearer(fresh) }),
      403,
      'FORBIDDEN',
    );

    const listed = await listJson();
    const oldEntry = listed.find((k) => k.keyId === old.keyId);
    expect(oldEntry).toMatchObject({ rotatedTo: newKeyId });
    const expiresAt = Date.parse(oldEntry?.expiresAt as string);
    expect(expiresAt - rotatedAt).toBeGreaterThanOrEqual(10_000);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(10_000);
    expect(listed.find((k) => k.keyId === newKeyId)).toMatchObject({
      rotatedFrom: old.keyId,
      label: 'billing',
      scope: 'read',
      expiresAt: null,
    });

    await sleep(Math.max(0, expiresAt - Date.now()) + 200);
    expectError(await call(server, '/pets', { authorization: bearer(old.key) }), 401, 'UNAUTHORIZED', [old.key]);
    expect((await call(server, '/pets', { authorization: bearer(fresh) })).status).toBe(200);
    expect((await listJson()).find((k) => k.keyId === old.keyId)?.state).toBe('expired');
  });

  it('refuses to rotate a key twice, an unknown key, or a bad overlap', async () => {
    const old = await create('--label', 'once');
    expect((await keyTool(server.dataDir, 'rotate', old.keyId)).code).toBe(0);
    const again = await keyTool(server.dataDir, 'rotate', old.keyId);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/already rotated to key_/);
    expect((await keyTool(server.dataDir, 'rotate', 'key_NoSuchKey00')).stderr).toMatch(/no key key_NoSuchKey00/);
    expect((await keyTool(server.dataDir, 'rotate', old.keyId, '--overlap', 'a while')).stderr).toMatch(/--overlap/);
  });

  it('by default, the old key keeps working for 24 hours', async () => {
    const old = await create('--label', 'default overlap');
    const started = Date.now();
    expect((await keyTool(server.dataDir, 'rotate', old.keyId)).code).toBe(0);
    const expiresAt = Date.parse((await listJson()).find((k) => k.keyId === old.keyId)?.expiresAt as string);
    expect(Math.abs(expiresAt - started - 86_400_000)).toBeLessThan(60_000);
  });
});

describe('RateLimit-Policy', () => {
  it("names the key's burst, steady rate and daily quota on 2xx and 4xx answers of every operation", async () => {
    const created = await postPet<{ id: number }>(server, { name: 'Limits', categoryId: 3 });
    const answers = [
      created,
      await call(server, '/pets'),
      await call(server, '/pets?limit=0'),
      await call(server, `/pets/${created.body.id}`),
      await call(server, '/pets/9007199254740991'),
      await call(server, '/pets/abc'),
      await postPet(server, { name: '' }),
      await postPet(server, '{}', { headers: { 'Content-Type': 'text/plain' } }),
    ];
    expect(answers.map((a) => a.status)).toEqual([201, 200, 400, 200, 404, 400, 400, 415]);
    for (const answer of answers) expect(answer.headers.get('ratelimit-policy')).toBe(POLICY);
  });

  it('is not on answers made before a key is known (401, 404 of an unknown route)', async () => {
    expect((await call(server, '/pets', { authorization: null })).headers.get('ratelimit-policy')).toBeNull();
    expect((await call(server, '/nowhere')).headers.get('ratelimit-policy')).toBeNull();
  });
});

describe('keys list', () => {
  it('shows scope, state, expiry, last use, rotation and limits as an aligned table', async () => {
    const used = await create('--label', 'used once', '--scope', 'read', '--expires', '30d');
    const unused = await create('--label', 'never used');
    expect((await call(server, '/pets', { authorization: bearer(used.key) })).status).toBe(200);
    const listed = await keyTool(server.dataDir, 'list');
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^KEY ID\s+LABEL\s+SCOPE\s+STATE\s+CREATED\s+EXPIRES\s+LAST USED\s+ROTATION\s+LIMITS\s+LAST CHANGE$/,
    );
    expect(listed.stdout).not.toMatch(/\(index\)|'|│|┌/);
    const row = (keyId: string) => lines.find((line) => line.startsWith(keyId))!;
    expect(row(used.keyId)).toMatch(
      /used once\s+read\s+active\s+\d{4}-\d\d-\d\d \d\d:\d\dZ\s+\d{4}-\d\d-\d\d \d\d:\d\dZ\s+\d{4}-\d\d-\d\d \d\d:\d\dZ\s+-\s+20\/s, burst 40, 100000\/day/,
    );
    expect(row(unused.keyId)).toMatch(/never used\s+write\s+active\s+\S+ \S+\s+-\s+never\s+-/);
    // Columns line up: every row's LIMITS starts where the header's does (labels are ASCII here).
    const column = lines[0]!.indexOf('LIMITS');
    expect(row(used.keyId).slice(column)).toMatch(/^20\/s/);
    const entry = (await listJson()).find((k) => k.keyId === used.keyId);
    expect(Date.now() - Date.parse(entry?.lastUsedAt as string)).toBeLessThan(60_000);
  });

  it('revoking a revoked key says it already was, and when, without revoking it again', async () => {
    const { keyId } = await create('--label', 'twice');
    expect((await keyTool(server.dataDir, 'revoke', keyId)).stdout).toMatch(new RegExp(`Revoked ${keyId}`));
    const revokedAt = (await listJson()).find((k) => k.keyId === keyId)?.revokedAt as string;
    const again = await keyTool(server.dataDir, 'revoke', keyId);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`${keyId} was already revoked on stage local, at ${revokedAt}`);
    expect(again.stdout).not.toMatch(/^Revoked/m);
  });
});
