// `npm start` keeps Node's module compile cache in node_modules/.cache (infra/local/compile-cache.mjs,
// written once the server has started): from the second start on, Node strips no TypeScript, so
// its stripper (amaro, a WASM module resident for the life of the process: 18 MB of RSS) is never
// loaded. Nothing else changes: the same modules, answering the same.
import { resolve } from 'node:path';
import { expect, test } from 'vitest';
import { disposeServer, startLocalServer } from '../../tools/harness/local-server.ts';

const REPORT = resolve('test/support/report-typescript-stripper.mjs');

const startAndStop = async (): Promise<string> => {
  const server = await startLocalServer({}, { defaults: true, nodeArgs: ['--import', REPORT] });
  try {
    const listing = await fetch(`${server.baseUrl}/pets`, { headers: { Authorization: `Bearer ${server.key}` } });
    expect(listing.status).toBe(200);
  } finally {
    await disposeServer(server);
  }
  return server.output();
};

test('a start after the first loads no TypeScript stripper: the first left its modules in the cache', async () => {
  await startAndStop();
  const second = await startAndStop();
  expect(second).toContain('typescript stripper: not loaded');
});
