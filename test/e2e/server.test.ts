// The local server as a person runs it: its environment variables, what it prints,
// one process per data directory, clean stops, restarts that lose nothing, and logs
// that never show a key.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalServer, newDataDir } from '../../tools/harness/local-server.ts';
import { STAMP, unstamped } from '../support/timestamps.ts';
import {
  type Animal,
  allPages,
  bearer,
  call,
  createPet,
  expectError,
  issueKey,
  KEY_FORMAT,
  keyTool,
  links,
  startServer,
  unknownKey,
} from './support.ts';

const run = promisify(execFile);

// Loopback, but not the default address, so that HOST is seen to be honoured.
const HOST = '127.0.0.2';

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, HOST, () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });

const dataDir = newDataDir();
const givenKey = unknownKey(32); // the shortest key the contract allows
let port: number;
let server: LocalServer; // the one running now
/** What the first server printed on start: the only place a key may appear. */
let banner: string;

beforeAll(async () => {
  port = await freePort();
  server = await startServer({
    PORT: String(port),
    HOST,
    PETSTORE_DATA_DIR: dataDir,
    PETSTORE_API_KEY: givenKey,
    // Everything the server can print: debug logs and the metric lines too.
    LOG_LEVEL: 'DEBUG',
    POWERTOOLS_METRICS_DISABLED: 'false',
  });
  // The banner may arrive in more than one chunk: it ends with the curl line.
  for (let wait = 0; !/curl.*\n/.test(server.output()) && wait < 40; wait++)
    await new Promise((resolve) => setTimeout(resolve, 50));
  const curlLine = /^.*curl.*\n/m.exec(server.output());
  banner = server.output().slice(0, curlLine ? curlLine.index + curlLine[0].length : undefined);
});
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Starts a server that must fail; returns what it printed. */
const expectStartFailure = async (env: Record<string, string>): Promise<string> => {
  const failure = await startServer(env).then(
    async (started) => {
      await started.stop();
      throw new Error(`the server started at ${started.baseUrl}`);
    },
    (error: Error) => error.message,
  );
  expect(failure).toMatch(/exited with [1-9]\d* before it started/); // exited at once, non-zero
  return failure;
};

describe('configuration', () => {
  it('honours PORT and HOST', async () => {
    expect(server.baseUrl).toBe(`http://${HOST}:${port}/v1`);
    expect((await call(server, '/pets')).status).toBe(200);
  });

  it('accepts PETSTORE_API_KEY, and names it without printing it (this output is a pipe, not a terminal)', async () => {
    expect(server.key).toBe(givenKey);
    expect(banner).toMatch(
      new RegExp(`^${STAMP}API key \\(key_\\w+\\): the one in PETSTORE_API_KEY \\(not printed`, 'm'),
    );
    expect((await call(server, '/pets', { authorization: bearer(givenKey) })).status).toBe(200);
  });

  it('prints a curl line that works as printed, in a shell that has PETSTORE_API_KEY', async () => {
    const line = banner.split('\n').find((l) => /\bcurl\b/.test(l));
    expect(line, banner).toBeDefined();
    const command = unstamped(line!).replace(/^Try:\s*/, '');
    expect(command).toContain(server.baseUrl);
    const { stdout } = await run('bash', ['-c', `${command} -s -w '\\n%{http_code}'`], {
      env: { ...process.env, PETSTORE_API_KEY: givenKey },
    });
    const [body, status] = stdout.trimEnd().split(/\n(?=\d{3}$)/);
    expect(status, stdout).toBe('200');
    expect(Array.isArray(JSON.parse(body!))).toBe(true);
  });

  it('keeps its data under PETSTORE_DATA_DIR', async () => {
    await createPet(server, { name: 'Stored', categoryId: 1 });
    expect(readdirSync(dataDir).length).toBeGreaterThan(0);
  });

  it('refuses a malformed PETSTORE_API_KEY: exits non-zero, naming the variable', async () => {
    const otherDir = newDataDir();
    try {
      // The right prefix, too few characters after it.
      const printed = await expectStartFailure({ PETSTORE_API_KEY: 'pet_tooShort', PETSTORE_DATA_DIR: otherDir });
      expect(printed).toMatch(/PETSTORE_API_KEY/);
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it('refuses a second server on the same data directory: exits at once, non-zero, saying why', async () => {
    const printed = await expectStartFailure({ PETSTORE_DATA_DIR: dataDir });
    expect(printed).toMatch(/data directory/i);
    expect(printed).toMatch(/in use|locked|already/i);
    // …and the first one is none the worse for it.
    expect((await call(server, '/pets')).status).toBe(200);
  });
});

describe('stop, restart, and what survives', () => {
  const animals: Animal[] = [];
  let idsBeforeRestart: number[];
  let toolKey: { key: string; keyId: string };
  let revokedKey: { key: string; keyId: string };
  let secondPage: { target: string; body: Animal[] }; // a next link issued before the restart, and its page
  const strangerKey = unknownKey();
  const basicCredentials = Buffer.from('user:password').toString('base64');
  const refusedTokens = [bearer(strangerKey), `Basic ${basicCredentials}`, `Bearer ${givenKey} extra`];

  it('serves a mix of requests (animals, keys from the key tool, a revoked key, refusals)', async () => {
    for (const [i, status] of (
      ['available', 'sold', 'available', 'pending', 'available', 'available'] as const
    ).entries()) {
      animals.push(await createPet(server, { name: `survivor ${i}`, categoryId: i + 1, status }));
    }
    const next = links(await call(server, '/pets?status=available&limit=2')).get('next')!;
    const page = await call<Animal[]>(server, next);
    expect(page.body).toHaveLength(2);
    secondPage = { target: next.pathname + next.search, body: page.body };

    [toolKey, revokedKey] = await Promise.all([issueKey(dataDir, 'e2e restart'), issueKey(dataDir, 'e2e revoked')]);
    expect(toolKey.key).toMatch(KEY_FORMAT);
    expect((await call(server, '/pets', { authorization: bearer(toolKey.key) })).status).toBe(200);
    expect((await call(server, '/pets/1', { authorization: bearer(revokedKey.key) })).status).not.toBe(401);
    expect((await keyTool(dataDir, 'revoke', revokedKey.keyId)).code).toBe(0);
    expectError(await call(server, '/pets', { authorization: bearer(revokedKey.key) }), 401, 'UNAUTHORIZED');

    for (const authorization of refusedTokens)
      expectError(await call(server, '/pets', { authorization }), 401, 'UNAUTHORIZED');
    expectError(await call(server, '/pets?limit=0', { authorization: bearer(toolKey.key) }), 400, 'BAD_REQUEST');
    expectError(await call(server, '/pets/9007199254740991', { authorization: bearer(toolKey.key) }), 404, 'NOT_FOUND');
  });

  it('never logs a key or an Authorization header, even at LOG_LEVEL=DEBUG, and names keys by id', async () => {
    const logged = server.output().slice(banner.length);
    expect(banner).not.toContain(givenKey); // printed on a terminal only (banner-key.test.ts)
    for (const secret of [givenKey, toolKey.key, revokedKey.key, strangerKey, basicCredentials, ...refusedTokens]) {
      expect(logged).not.toContain(secret);
    }
    for (const key of [toolKey.key, revokedKey.key]) expect(server.output()).not.toContain(key);
    // Not vacuous: the requests were logged, by key id.
    expect(logged).toContain(toolKey.keyId);
  });

  it('stops cleanly on SIGINT', async () => {
    expect(await server.stop('SIGINT')).toBe(0);
  });

  it('keeps keys only as hashes: no key is anywhere in the data directory', () => {
    const files = readdirSync(dataDir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    const stored = files.map((file) => readFileSync(join(file.parentPath, file.name)).toString('latin1')).join('\n');
    expect(stored).toContain(animals[0]!.name); // not vacuous: the store's files can be read this way
    for (const key of [givenKey, toolKey.key, revokedKey.key]) expect(stored).not.toContain(key);
  });

  it('restarts on the same data directory with every animal and key', async () => {
    server = await startServer({ PETSTORE_DATA_DIR: dataDir });
    // A key of its own, printed and usable…
    expect(server.key).toMatch(KEY_FORMAT);
    expect((await call(server, '/pets')).status).toBe(200);
    // …and every key from before, revoked ones still refused.
    expect((await call(server, '/pets', { authorization: bearer(givenKey) })).status).toBe(200);
    expect((await call(server, '/pets', { authorization: bearer(toolKey.key) })).status).toBe(200);
    expectError(await call(server, '/pets', { authorization: bearer(revokedKey.key) }), 401, 'UNAUTHORIZED');

    for (const animal of animals) expect((await call<Animal>(server, `/pets/${animal.id}`)).body).toEqual(animal);
    const listed = (await allPages(server, '/pets?limit=3')).flatMap((page) => page.body);
    for (const animal of animals) expect(listed).toContainEqual(animal);
    idsBeforeRestart = listed.map((a) => a.id);
  });

  it('never reuses an id after the restart', async () => {
    const created = await createPet(server, { name: 'after restart', categoryId: 1 });
    expect(idsBeforeRestart).not.toContain(created.id);
  });

  it('follows a cursor issued before the restart', async () => {
    const reply = await call<Animal[]>(server, new URL(secondPage.target, server.baseUrl));
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toEqual(secondPage.body);
  });

  it('stops cleanly on SIGTERM', async () => {
    expect(await server.stop('SIGTERM')).toBe(0);
  });
});
