// The local stage's listing cache on its own (infra/local/listing-cache.ts): keyed by limit,
// status and cursor only, 200s only, for the TTL, and bounded in pages and bytes (cursors make keys unbounded).
import { describe, expect, it } from 'vitest';
import { createListingCache } from '../../infra/local/listing-cache.ts';

const url = (query: string) => new URL(`http://localhost/v1/pets${query}`);
const answers = (statusCode = 200) => {
  let n = 0;
  return {
    load: async () => ({ statusCode, body: String(++n) }),
    calls: () => n,
  };
};

describe('the listing cache', () => {
  it('keeps a 200 for the TTL, per limit, status and cursor, whatever else the query holds', async () => {
    let clock = 0;
    const cache = createListingCache(2, { maxEntries: 10 }, () => clock);
    const origin = answers();
    expect((await cache.serve(url('?status=sold&limit=5'), origin.load)).body).toBe('1');
    expect((await cache.serve(url('?limit=5&status=sold&other=x'), origin.load)).body).toBe('1');
    expect((await cache.serve(url('?status=sold&limit=6'), origin.load)).body).toBe('2');
    expect((await cache.serve(url('?status=sold&limit=5&cursor=c'), origin.load)).body).toBe('3');
    clock = 1999;
    expect((await cache.serve(url('?status=sold&limit=5'), origin.load)).body).toBe('1');
    clock = 2000;
    expect((await cache.serve(url('?status=sold&limit=5'), origin.load)).body).toBe('4');
  });

  it('keeps no error answer', async () => {
    const cache = createListingCache(60);
    const origin = answers(503);
    await cache.serve(url(''), origin.load);
    await cache.serve(url(''), origin.load);
    expect(origin.calls()).toBe(2);
  });

  // Unlike API Gateway's, which keys a repeated parameter by its last value (test/cdk/listing-cache.test.ts):
  // a listing with a parameter given twice (400, docs/api.md) never shares an entry with the one without.
  it('keys a repeated parameter by all its values: `?limit=5&limit=5` is never served for `?limit=5`, nor the reverse', async () => {
    const cache = createListingCache(60);
    const repeated = answers(400);
    const single = answers(200);
    await cache.serve(url('?status=sold&limit=5&limit=5'), repeated.load);
    expect((await cache.serve(url('?status=sold&limit=5'), single.load)).statusCode).toBe(200);
    expect((await cache.serve(url('?status=sold&limit=5&limit=5'), repeated.load)).statusCode).toBe(400);
    expect((await cache.serve(url('?status=sold&status=sold&limit=5'), repeated.load)).statusCode).toBe(400);
    expect(repeated.calls()).toBe(3);
    expect(single.calls()).toBe(1);
  });

  it('at 0 keeps nothing', async () => {
    const cache = createListingCache(0);
    const origin = answers();
    await cache.serve(url(''), origin.load);
    await cache.serve(url(''), origin.load);
    expect(origin.calls()).toBe(2);
  });

  it('holds at most its bound, dropping the oldest page first', async () => {
    const cache = createListingCache(60, { maxEntries: 3 });
    const origin = answers();
    for (const cursor of ['a', 'b', 'c', 'd']) await cache.serve(url(`?cursor=${cursor}`), origin.load);
    expect((await cache.serve(url('?cursor=d'), origin.load)).body).toBe('4');
    expect((await cache.serve(url('?cursor=b'), origin.load)).body).toBe('2');
    expect((await cache.serve(url('?cursor=a'), origin.load)).body).toBe('5');
  });

  it('holds at most its bytes, a page counted at two bytes a character: the oldest pages go first', async () => {
    const page = (text: string) => async () => ({ statusCode: 200, body: text });
    // Each page: a 10,000-character body, ~20 KB held; a bound of 50 KB keeps two of them.
    const cache = createListingCache(60, { maxBytes: 50_000 });
    for (const cursor of ['a', 'b', 'c']) await cache.serve(url(`?cursor=${cursor}`), page(cursor.repeat(10_000)));
    expect(cache.held().pages).toBe(2);
    expect(cache.held().bytes).toBeGreaterThan(2 * 2 * 10_000);
    expect(cache.held().bytes).toBeLessThanOrEqual(50_000);
    expect((await cache.serve(url('?cursor=a'), page('a again'))).body).toBe('a again');
    expect((await cache.serve(url('?cursor=c'), page('c again'))).body).toBe('c'.repeat(10_000));
  });

  it('keeps no page larger than its bytes', async () => {
    const cache = createListingCache(60, { maxBytes: 1_000 });
    await cache.serve(url(''), async () => ({ statusCode: 200, body: 'x'.repeat(1_000) }));
    expect(cache.held()).toEqual({ pages: 0, bytes: 0 });
  });

  it('drops expired pages at the next listing, though nobody asks for them again', async () => {
    let clock = 0;
    const cache = createListingCache(2, {}, () => clock);
    const origin = answers();
    for (const cursor of ['a', 'b', 'c']) await cache.serve(url(`?cursor=${cursor}`), origin.load);
    clock = 1_000;
    await cache.serve(url('?cursor=d'), origin.load);
    expect(cache.held().pages).toBe(4);
    clock = 2_000; // a, b and c expired; d has a second left
    await cache.serve(url('?cursor=d'), origin.load);
    expect(cache.held().pages).toBe(1);
  });
});
