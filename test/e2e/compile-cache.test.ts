// `npm start` keeps Node's module compile cache in node_modules/.cache (infra/local/compile-cache.mjs):
// a process that finds every module it loads there strips no TypeScript, so Node's stripper (amaro,
// a WASM module resident for the life of the process: ~17 MB more RSS at the attack test's peak,
// docs/performance.md) is never loaded in it. A cache that lacks a module (the first start after a
// checkout, a `git pull`, any edit) is filled by a short-lived child before the server loads
// anything, so the server holds no stripper whatever the cache's state, the modules it loads lazily
// included. Nothing else changes: the same modules, answering the same.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { disposeServer, type LocalServer, startLocalServer } from '../../tools/harness/local-server.ts';
import { bearer, postPet } from './support.ts';

const REPORT = resolve('test/support/report-typescript-stripper.mjs');

const caches: string[] = [];
afterEach(() => {
  for (const cache of caches.splice(0)) rmSync(cache, { recursive: true, force: true });
});
/** An empty compile cache, as a fresh checkout has: Node takes NODE_COMPILE_CACHE's before compile-cache.mjs's. */
const emptyCache = () => {
  caches.push(mkdtempSync(join(tmpdir(), 'petstore-compile-cache-')));
  return caches.at(-1)!;
};

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
