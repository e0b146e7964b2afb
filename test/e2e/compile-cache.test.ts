// `npm start` keeps Node's module compile cache in node_modules/.cache (infra/local/compile-cache.mjs):
// a process that finds every module it loads there strips no TypeScript, so Node's stripper (amaro,
// a WASM module resident for the life of the process: ~17 MB more RSS at the attack test's peak,
// docs/performance.md) is never loaded in it. A cache that lacks a module (the first start after a
// checkout, a `git pull`, any edit) is filled by a short-lived child before the server loads
// anything, so the server holds no stripper whatever the cache's state, the modules it loads lazily
// included. Nothing else changes: the same modules, answering the same.
import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { disposeServer, type LocalServer, startLocalServer } from '../../tools/harness/local-server.ts';
import { bearer, postPet } from './support.ts';

const REPORT = resolve('test/support/report-typescript-stripper.mjs');

const temporary: string[] = [];
afterEach(() => {
  for (const directory of temporary.splice(0)) rmSync(directory, { recursive: true, force: true });
});
const temporaryDirectory = (prefix: string) => {
  temporary.push(mkdtempSync(join(tmpdir(), prefix)));
  return temporary.at(-1)!;
};
/** An empty compile cache, as a fresh checkout has: Node takes NODE_COMPILE_CACHE's before compile-cache.mjs's. */
const emptyCache = () => temporaryDirectory('petstore-compile-cache-');

/** Starts `npm start` with `env`, reads, creates with an Idempotency-Key, stops; what it printed. */
const startServeAndStop = async (env: Record<string, string> = {}): Promise<string> => {
  const server: LocalServer = await startLocalServer(env, { defaults: true, nodeArgs: ['--import', REPORT] });
  try {
    const listing = await fetch(`${server.baseUrl}/pets`, { headers: { Authorization: bearer(server.key) } });
    expect(listing.status).toBe(200);
    // The one module the server imports on a request, not at its start (shared/lambda/idempotent-create.ts).
    const created = await postPet(
      server,
      { name: 'Cache', categoryId: 1 },
      { headers: { 'Idempotency-Key': randomUUID() } },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  } finally {
    await disposeServer(server);
  }
  return server.output();
};

test('a start on an empty compile cache loads no TypeScript stripper, not even for what it imports on a request', async () => {
  expect(await startServeAndStop({ NODE_COMPILE_CACHE: emptyCache() })).toContain('typescript stripper: not loaded');
});

test('a start after the first loads no TypeScript stripper: the first left its modules in the cache', async () => {
  await startServeAndStop();
  expect(await startServeAndStop()).toContain('typescript stripper: not loaded');
});

test('npm run dev on an empty compile cache: neither it nor a generation loads the stripper, the one after a save included', async () => {
  // A copy of the repository, as test/e2e/dev.test.ts edits one: never the one other tests run from.
  const tree = temporaryDirectory('petstore-dev-cache-');
  for (const part of ['functions', 'shared', 'infra', 'package.json', 'openapi.json']) {
    cpSync(resolve(part), join(tree, part), { recursive: true });
  }
  symlinkSync(resolve('node_modules'), join(tree, 'node_modules'));
  const server = await startLocalServer(
    { NODE_COMPILE_CACHE: emptyCache() },
    { defaults: true, entry: 'infra/local/dev.ts', cwd: tree, nodeArgs: ['--import', REPORT] },
  );
  try {
    const getPet = join(tree, 'functions', 'get-pet.ts');
    writeFileSync(getPet, readFileSync(getPet, 'utf8').replace('no animal has id', 'nothing here with id'));
    await expect
      .poll(
        async () =>
          (await fetch(`${server.baseUrl}/pets/1`, { headers: { Authorization: bearer(server.key) } })).text(),
        {
          timeout: 10_000,
        },
      )
      .toContain('nothing here with id');
  } finally {
    await disposeServer(server);
  }
  // Each process says so as it exits: the supervisor, the generation before the save and the one after (and a spare).
  const reports = server.output().match(/typescript stripper: .*/g) ?? [];
  expect(reports.length, server.output()).toBeGreaterThanOrEqual(3);
  expect(new Set(reports)).toEqual(new Set(['typescript stripper: not loaded']));
});
