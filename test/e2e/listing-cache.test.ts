// The listing cache over HTTP (PETSTORE_LISTING_CACHE_TTL, listingCacheTtlSeconds deployed):
// with a TTL, a repeated listing within it is the cached page (no DynamoDB request on the
// wire), so a new animal is missing from it until the TTL has passed; a refused key never gets
// the cached page; off (the default), a new animal is listed at once.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalServer, startLocalServer } from '../../tools/harness/local-server.ts';
import { type Animal, bearer, call, createPet, disposeServer, expectError, unknownKey } from './support.ts';

const TTL_SECONDS = 2;

let cached: LocalServer;
let uncached: LocalServer;
beforeAll(async () => {
  [cached, uncached] = await Promise.all([
    startLocalServer({ PETSTORE_LISTING_CACHE_TTL: String(TTL_SECONDS) }, { probe: true }),
    startLocalServer({}, { probe: true }),
  ]);
});
afterAll(() => Promise.all([disposeServer(cached), disposeServer(uncached)]));

/** The page's ids, and the DynamoDB requests (all operations) made while it was read, counted on the wire. */
const listed = async (server: LocalServer, query: string) => {
  const before = await server.probe!.dynamodbRequests();
  const reply = await call<Animal[]>(server, `/pets${query}`);
  const after = await server.probe!.dynamodbRequests();
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  const requests = Object.keys(after).reduce((n, op) => n + after[op]! - (before[op] ?? 0), 0);
  return { ids: reply.body.map((a) => a.id), requests };
};

describe(`with PETSTORE_LISTING_CACHE_TTL=${TTL_SECONDS}`, () => {
  it('serves a repeated listing from the cache until the TTL has passed: a new animal is missing, then present', async () => {
    const first = await listed(cached, '?status=sold&limit=50');
    const readAt = Date.now();
    expect(first.requests).toBeGreaterThan(0);
    const animal = await createPet(cached, { name: 'late', categoryId: 1, status: 'sold' });

    const again = await listed(cached, '?status=sold&limit=50');
    // Only meaningful within the TTL: a machine so slow that the create took the whole TTL says so here.
    expect(Date.now() - readAt).toBeLessThan(TTL_SECONDS * 1000);
    expect(again).toEqual({ ids: first.ids, requests: 0 });
    expect(again.ids).not.toContain(animal.id);

    // Keyed by the query: another limit is another page, read afresh.
    expect((await listed(cached, '?status=sold&limit=49')).ids).toContain(animal.id);

    // A key the authorizer refuses gets its 401, never the cached page.
    const stranger = unknownKey();
    expectError(
      await call(cached, '/pets?status=sold&limit=50', { authorization: bearer(stranger) }),
      401,
      'UNAUTHORIZED',
      [stranger],
    );
    expectError(await call(cached, '/pets?status=sold&limit=50', { authorization: null }), 401, 'UNAUTHORIZED');

    await sleep(TTL_SECONDS * 1000 - (Date.now() - readAt) + 100);
    const after = await listed(cached, '?status=sold&limit=50');
    expect(after.ids).toContain(animal.id);
    expect(after.requests).toBeGreaterThan(0);
  });
});

describe('off (the default)', () => {
  it('lists a new animal at once, every listing read from DynamoDB', async () => {
    const first = await listed(uncached, '?status=sold&limit=50');
    const animal = await createPet(uncached, { name: 'at once', categoryId: 1, status: 'sold' });
    const again = await listed(uncached, '?status=sold&limit=50');
    expect(again.ids).toEqual([...first.ids, animal.id]);
    expect(again.requests).toBeGreaterThan(0);
  });
});
