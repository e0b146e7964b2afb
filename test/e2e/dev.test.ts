// `npm run dev` serves a saved change within about a second, keeping the data, the key and
// the embedded DynamoDB running, and a request sent during the reload waits for the new
// code rather than failing, however the save is written (renamed over the file too), and a
// revoked key is refused on connections the replaced code still holds. The test edits a copy
// of the repository, never the one other tests run from.
import { once } from 'node:events';
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
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
/** The served 404's text before the id, as the source writes it: each test edits what is served now, so any test runs alone. */
const missingText = async () => (await missing()).replace(` ${MAX_SAFE_ID}`, '');
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
  const served = await missing();
  const source = readFileSync(getPet, 'utf8');
  writeFileSync(getPet, `${source}\nexport const broken = ;\n`);
  await expect.poll(() => server.output(), { timeout: 10_000 }).toMatch(/did not load; still serving/);
  expectError(await call(server, `/pets/${MAX_SAFE_ID}`), 404, 'NOT_FOUND');
  expect(await missing()).toBe(served);
  writeFileSync(getPet, source);
});

test('the key tool works through it: a key it creates is accepted, and refused once revoked', async () => {
  const { key, keyId } = await issueKey(server.dataDir, 'dev test');
  expect((await call(server, '/pets', { authorization: bearer(key) })).status).toBe(200);
  const revoked = await keyTool(server.dataDir, 'revoke', keyId);
  expect(revoked.code, revoked.stderr).toBe(0);
  expectError(await call(server, '/pets', { authorization: bearer(key) }), 401, 'UNAUTHORIZED', [key]);
});

/** A kept-alive connection: `send` writes one GET and resolves to the status of its answer. */
const keptAlive = async (path: string, key: string) => {
  const url = new URL(`${server.baseUrl}${path}`);
  const socket = connect(Number(url.port), url.hostname);
  await once(socket, 'connect');
  socket.setEncoding('latin1');
  let received = '';
  let closed = false;
  socket.on('data', (chunk) => (received += chunk));
  socket.on('close', () => (closed = true));
  const answer = () => {
    const head = /^HTTP\/1\.1 (\d{3})[\s\S]*?\r\n\r\n/.exec(received);
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(head?.[0] ?? '')?.[1]);
    return head && received.length >= head[0].length + length ? { head, length } : undefined;
  };
  return {
    send: async () => {
      socket.write(`GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${key}\r\n\r\n`);
      await expect.poll(() => answer() !== undefined || closed, { timeout: 10_000 }).toBe(true);
      const got = answer();
      expect(got, `the connection closed without an answer: ${received}`).toBeDefined();
      received = received.slice(got!.head[0].length + got!.length);
      return Number(got!.head[1]);
    },
    close: () => socket.destroy(),
  };
};

test('a revoked key is refused on a kept-alive connection the code being replaced still holds', async () => {
  const { key, keyId } = await issueKey(server.dataDir, 'dev keep-alive');
  const connection = await keptAlive('/pets?limit=1', key);
  try {
    expect(await connection.send()).toBe(200); // its authorizer cache now holds the key
    // A reload: new connections go to the new code, this one stays with the draining one.
    const served = await missingText();
    await saveAndWait(getPet, served, `${served} (reloaded)`, missing);
    const revoked = await keyTool(server.dataDir, 'revoke', keyId);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(await connection.send()).toBe(401);
  } finally {
    connection.close();
  }
});

test('saves made by renaming a new file over the old one (editors, sed -i, git checkout) are all served', async () => {
  for (const n of [1, 2, 3]) {
    const source = readFileSync(getPet, 'utf8');
    const message = /NotFoundError\(`([^$`]*)\$\{petId\}`\)/.exec(source)!;
    const temporary = join(tree, 'functions', `.get-pet.ts.${n}.tmp`);
    const saved = performance.now();
    writeFileSync(temporary, source.replace(message[0], message[0].replace(message[1]!, `renamed save ${n}: `)));
    renameSync(temporary, getPet);
    await expect.poll(missing, { timeout: 10_000, interval: 50 }).toMatch(new RegExp(`^renamed save ${n}:`));
    const ms = performance.now() - saved;
    expect(ms, `save ${n} served after ${Math.round(ms)} ms`).toBeLessThan(3000);
  }
});

test('stops cleanly, freeing the data directory', async () => {
  expect(await server.stop('SIGTERM')).toBe(0);
  expect(readOwner(server.dataDir)).toBeUndefined();
});
