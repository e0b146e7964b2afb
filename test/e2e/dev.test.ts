// `npm run dev` serves a saved change within about a second, keeping the data, the key and
// the embedded DynamoDB running, and a request sent during the reload waits for the new
// code rather than failing. The test edits a copy of the repository, never the one other
// tests run from.
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { readOwner } from '../../infra/local/data-dir.ts';
import { disposeServer, type LocalServer, startLocalServer } from '../../tools/harness/local-server.ts';
import { type Animal, bearer, call, createPet, expectError, issueKey, keyTool, MAX_SAFE_ID } from './support.ts';

const REPOSITORY = resolve(import.meta.dirname, '../..');
const tree = mkdtempSync(join(tmpdir(), 'petstore-dev-'));
const getPet = join(tree, 'functions', 'get-pet.ts');
let server: LocalServer;

beforeAll(async () => {
  for (const part of ['functions', 'shared', 'infra', 'package.json', 'openapi.json']) {
    cpSync(join(REPOSITORY, part), join(tree, part), { recursive: true });
  }
  symlinkSync(join(REPOSITORY, 'node_modules'), join(tree, 'node_modules'));
  server = await startLocalServer({}, { entry: 'infra/local/dev.ts', cwd: tree });
});
afterAll(async () => {
  await disposeServer(server);
  rmSync(tree, { recursive: true, force: true });
});

/** The 404's message: every answer during a reload must still be the 404 (none fails). */
const messageOf404 = async (path: string) => {
  const reply = await call<{ message: string }>(server, path);
  expect(reply.status, JSON.stringify(reply.body)).toBe(404);
  return reply.body.message;
};
const missing = () => messageOf404(`/pets/${MAX_SAFE_ID}`);
const noSuchOperation = () => messageOf404('/no-such-operation');

/**
 * Saves `file` of the copy with `from` replaced by `to`, then asks `read` until its answer
 * shows `to`; resolves to the milliseconds that took. Every answer meanwhile comes (none fails).
 */
const saveAndWait = async (file: string, from: string, to: string, read: () => Promise<string>) => {
  const source = readFileSync(file, 'utf8');
  expect(source).toContain(from);
  const saved = performance.now();
  writeFileSync(file, source.replace(from, to));
  let seen = await read();
  while (!seen.includes(to) && performance.now() - saved < 10_000) seen = await read();
  expect(seen).toContain(to);
  return performance.now() - saved;
};

test('a saved change to a function is served within about a second; the data, the key and the store stay', async () => {
  const animal = await createPet(server, { name: 'Rex', categoryId: 1 });
  expect(await missing()).toMatch(/^no animal has id/);
  const store = readOwner(server.dataDir);
  expect(store?.dynamodbAddress).toBeDefined();

  const ms = await saveAndWait(getPet, 'no animal has id', 'nothing here with id', missing);
  // About a second on an idle machine (the supervisor prints each reload's time); the bound
  // leaves room for a runner busy with other test files.
  const reloads = server.output().match(/.*(reloading|serving the code).*/g);
  expect(ms, `served after ${Math.round(ms)} ms: ${reloads}`).toBeLessThan(3000);

  // The animal, the key (the calls above use it) and the embedded DynamoDB are the same.
  expect((await call<Animal>(server, `/pets/${animal.id}`)).body).toEqual(animal);
  expect(readOwner(server.dataDir)).toEqual(store);
  expect(store?.pid).toBe(server.process.pid);
});

test('a saved change to a shared module the emulator imports is served too', async () => {
  const before = await noSuchOperation();
  await saveAndWait(join(tree, 'shared', 'api', 'gateway-responses.ts'), before, `${before} (edited)`, noSuchOperation);
});

test('a change that does not load leaves the previous code serving', async () => {
  const source = readFileSync(getPet, 'utf8');
  writeFileSync(getPet, `${source}\nexport const broken = ;\n`);
  await expect.poll(() => server.output(), { timeout: 10_000 }).toMatch(/did not load; still serving/);
  expectError(await call(server, `/pets/${MAX_SAFE_ID}`), 404, 'NOT_FOUND');
  expect(await missing()).toMatch(/^nothing here with id/);
  writeFileSync(getPet, source);
});

test('the key tool works through it: a key it creates is accepted, and refused once revoked', async () => {
  const { key, keyId } = await issueKey(server.dataDir, 'dev test');
  expect((await call(server, '/pets', { authorization: bearer(key) })).status).toBe(200);
  const revoked = await keyTool(server.dataDir, 'revoke', keyId);
  expect(revoked.code, revoked.stderr).toBe(0);
  expectError(await call(server, '/pets', { authorization: bearer(key) }), 401, 'UNAUTHORIZED', [key]);
});

test('stops cleanly, freeing the data directory', async () => {
  expect(await server.stop('SIGTERM')).toBe(0);
  expect(readOwner(server.dataDir)).toBeUndefined();
});
