// The local stage's authorizer cache, over HTTP and the key tool: on by default with the
// deployed TTL (a cached key costs no key lookup), and flushed by a revoke before the key
// tool returns, so that a revoked key is refused at once, as the contract says.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOwner } from '../../infra/local/data-dir.ts';
import { MANAGEMENT_TOKEN_FILE } from '../../infra/local/management.ts';
import { type LocalServer, startLocalServer } from '../../tools/harness/local-server.ts';
import { bearer, call, disposeServer, expectError, issueKey, keyTool } from './support.ts';

let server: LocalServer;
beforeAll(async () => {
  // npm start's defaults (no PETSTORE_AUTHORIZER_CACHE_TTL), with the probe counting DynamoDB requests
  server = await startLocalServer({}, { probe: true });
});
afterAll(() => disposeServer(server));

const management = () => {
  const endpoint = readOwner(server.dataDir)?.managementEndpoint;
  expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  return endpoint!;
};

/** GetItem requests the embedded DynamoDB answered while `work` ran, counted on the wire. */
const getItemsDuring = async (work: () => Promise<unknown>): Promise<number> => {
  const before = (await server.probe!.dynamodbRequests()).GetItem ?? 0;
  await work();
  return ((await server.probe!.dynamodbRequests()).GetItem ?? 0) - before;
};

describe('the authorizer cache', () => {
  it('holds an accepted key by default: requests after the first make no key lookup', async () => {
    const { key } = await issueKey(server.dataDir, 'cache');
    // The first request looks the key up (one GetItem) and gets 404 (no animal 1 yet): the
    // function's own GetItem. Later ones make only the function's GetItem.
    const first = await getItemsDuring(async () =>
      expectError(await call(server, '/pets/1', { authorization: bearer(key) }), 404, 'NOT_FOUND'),
    );
    expect(first).toBe(2);
    const later = await getItemsDuring(async () => {
      for (let i = 0; i < 5; i++)
        expectError(await call(server, '/pets/1', { authorization: bearer(key) }), 404, 'NOT_FOUND');
    });
    expect(later).toBe(5);
  });

  it('refuses a key at once once the key tool revoked it, though the key was cached', async () => {
    const { key, keyId } = await issueKey(server.dataDir, 'revoked while cached');
    for (let i = 0; i < 2; i++) expect((await call(server, '/pets', { authorization: bearer(key) })).status).toBe(200);
    const cached = await getItemsDuring(async () => {
      expect((await call(server, '/pets', { authorization: bearer(key) })).status).toBe(200);
    });
    expect(cached).toBe(0); // the listing is a Scan: no GetItem at all means the key was cached

    const revoked = await keyTool(server.dataDir, 'revoke', keyId);
    expect(revoked.code, revoked.stderr).toBe(0);
    expectError(await call(server, '/pets', { authorization: bearer(key) }), 401, 'UNAUTHORIZED', [key]);
    // Other cached keys are looked up again, and still accepted.
    expect((await call(server, '/pets')).status).toBe(200);
  });
});

describe('the management endpoint', () => {
  it('listens on loopback, and refuses a call without the token in the data directory', async () => {
    for (const authorization of [undefined, 'Bearer wrong', `Bearer ${'0'.repeat(64)}`]) {
      const response = await fetch(`${management()}/authorizer-cache`, {
        method: 'DELETE',
        headers: authorization ? { Authorization: authorization } : {},
      });
      expect(response.status).toBe(401);
    }
  });

  it('keeps its token readable by the owner only', () => {
    expect(statSync(join(server.dataDir, MANAGEMENT_TOKEN_FILE)).mode & 0o777).toBe(0o600);
  });
});
