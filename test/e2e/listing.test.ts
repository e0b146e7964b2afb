// listPets over HTTP: limit and status rules, the status filter's order, and paging
// through `Link: <…>; rel="next"`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalServer } from '../../tools/harness/local-server.ts';
import {
  type Animal,
  allPages,
  call,
  createPet,
  disposeServer,
  expectAnimal,
  expectBadRequest,
  inBatches,
  links,
  type Reply,
  startServer,
} from './support.ts';

// More than 100 animals, so that limit=100 is a real cap. No animal is `pending`.
const TOTAL = 105;
const SOLD = 10;

let server: LocalServer;
let all: Animal[];
const withStatus = (status: string) => all.filter((a) => a.status === status).sort((a, b) => a.id - b.id);

beforeAll(async () => {
  server = await startServer();
  // Sold animals are spread over the creation order, so they are not one run of ids.
  all = await inBatches([...Array(TOTAL).keys()], 8, (i) =>
    createPet(server, {
      name: `animal ${i}`,
      categoryId: (i % 7) + 1,
      status: i % 10 === 3 && i < 10 * SOLD ? 'sold' : 'available',
    }),
  );
});
afterAll(() => disposeServer(server));

const list = (query: string) => call<Animal[]>(server, `/pets${query}`);

const expectPage = (reply: Reply<Animal[]>, size: number, hasNext: boolean) => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(Array.isArray(reply.body)).toBe(true);
  reply.body.forEach(expectAnimal);
  expect(reply.body).toHaveLength(size);
  expect(links(reply).has('next')).toBe(hasNext);
};

describe('limit', () => {
  it('is 20 by default, with and without a status', async () => {
    expect(withStatus('available').length).toBeGreaterThan(20);
    expectPage(await list(''), 20, true);
    expectPage(await list('?status=available'), 20, true);
  });

  it('caps the page from 1 to 100', async () => {
    expectPage(await list('?limit=1'), 1, true);
    expectPage(await list('?limit=100'), 100, true);
    expectPage(await list('?limit=100&status=sold'), SOLD, false);
  });

  for (const [label, query] of [
    ['0', '?limit=0'],
    ['101', '?limit=101'],
    ['negative', '?limit=-1'],
    ['not a number', '?limit=abc'],
    ['a fraction', '?limit=1.5'],
    ['an exponent', '?limit=1e1'],
    ['hexadecimal', '?limit=0x10'],
    ['empty', '?limit='],
    ['repeated', '?limit=5&limit=5'],
  ]) {
    it(`is 400 when ${label}`, async () => {
      expectBadRequest(await list(query!), 'limit');
    });
  }
});

describe('a parameter the API does not know', () => {
  // Ignored once; given twice, 400 naming it (every parameter at most once). Its name is the
  // client's text, echoed in the Error body: named by the escapes of its control characters, never
  // with them (as no animal's name may hold one).
  it('is 400 when repeated, named with its control characters escaped', async () => {
    expect((await list('?li%1B%5B2Jmit=5')).status).toBe(200);
    const error = expectBadRequest(await list('?li%1B%5B2Jmit=5&li%1B%5B2Jmit=6'), 'li\\u001b[2Jmit');
    expect(error.message.replaceAll('\\u', '')).not.toMatch(/\p{Cc}/u);
  });
});

describe('status', () => {
  for (const [label, query] of [
    ['in another case', '?status=Available'],
    ['in upper case', '?status=SOLD'],
    ['not a status', '?status=lost'],
    ['empty', '?status='],
    ['repeated', '?status=sold&status=sold'],
  ]) {
    it(`is 400 when ${label}`, async () => {
      expectBadRequest(await list(query!), 'status');
    });
  }

  it('returns only that status, ordered by id ascending', async () => {
    for (const status of ['sold', 'available']) {
      const reply = await list(`?status=${status}&limit=100`);
      expect(reply.status).toBe(200);
      reply.body.forEach(expectAnimal);
      expect(reply.body.every((a) => a.status === status)).toBe(true);
      const ids = reply.body.map((a) => a.id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
    }
    const sold = await list('?status=sold&limit=100');
    expect(sold.body).toEqual(withStatus('sold'));
  });

  it('is [] without a next link when nothing matches', async () => {
    const reply = await list('?status=pending');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([]);
    expect(links(reply).has('next')).toBe(false);
  });
});

describe('paging', () => {
  it('following next from the first page visits every filtered animal once, in id order', async () => {
    const pages = await allPages(server, '/pets?status=available&limit=25');
    const expected = withStatus('available');
    expect(pages.map((p) => p.body.length)).toEqual([25, 25, 25, expected.length - 75]);
    expect(pages.flatMap((p) => p.body)).toEqual(expected);
    for (const [i, page] of pages.entries()) expect(links(page).has('next')).toBe(i < pages.length - 1);
  });

  it('following next visits every animal once without a filter', async () => {
    const pages = await allPages(server, '/pets?limit=10');
    expect(pages).toHaveLength(Math.ceil(TOTAL / 10));
    for (const page of pages.slice(0, -1)) expect(page.body).toHaveLength(10);
    const seen = pages.flatMap((p) => p.body);
    expect(seen.map((a) => a.id).sort((a, b) => a - b)).toEqual(all.map((a) => a.id).sort((a, b) => a - b));
    expect(new Set(seen.map((a) => a.id)).size).toBe(seen.length);
    const byId = new Map(all.map((a) => [a.id, a]));
    for (const animal of seen) expect(animal).toEqual(byId.get(animal.id));
  });

  it('next is the same listing (address, filter, page size) plus a cursor', async () => {
    const first = await list('?status=available');
    const next = links(first).get('next')!;
    const requested = new URL(first.url);
    expect(next.origin + next.pathname).toBe(requested.origin + requested.pathname);
    expect(next.searchParams.getAll('status')).toEqual(['available']);
    expect(next.searchParams.get('cursor')).toMatch(/\S/);
    // The default page size carries over too.
    const second = await call<Animal[]>(server, next);
    expectPage(second, 20, true);
    expect(second.body[0]!.id).toBeGreaterThan(first.body.at(-1)!.id);
  });

  it('a last page that is exactly full has no next link', async () => {
    const pages = await allPages(server, '/pets?status=sold&limit=5');
    expect(pages.map((p) => p.body.length)).toEqual([5, 5]);
    expect(pages.flatMap((p) => p.body)).toEqual(withStatus('sold'));
    expectPage(await list(`?status=sold&limit=${SOLD}`), SOLD, false);
  });
});

describe('cursor', () => {
  const cursorOf = async (query: string) =>
    links(await list(query))
      .get('next')!
      .searchParams.get('cursor')!;

  it('that the service did not issue is 400', async () => {
    const issued = await cursorOf('?limit=5');
    const [head] = issued.split('.');
    const forged = [
      'x',
      'abc.def',
      Buffer.from(JSON.stringify({ after: 1, status: null })).toString('base64url'),
      `${Buffer.from(JSON.stringify({ after: 1, status: null })).toString('base64url')}.AAAAAAAAAAAAAAAAAAAAAA`,
      `${issued}.${issued}`,
      `${head}.`,
      issued.slice(0, -1),
      `${issued}A`,
    ];
    for (const cursor of forged)
      expectBadRequest(await list(`?limit=5&cursor=${encodeURIComponent(cursor)}`), 'cursor');
  });

  it('altered in any single character is 400', async () => {
    const issued = await cursorOf('?status=available&limit=5');
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    // The next character of the alphabet: the smallest change, even in the last, partly unused, base64 digit.
    const altered = [...issued].map((c, i) => {
      const at = alphabet.indexOf(c);
      return `${issued.slice(0, i)}${at < 0 ? 'A' : alphabet[(at + 1) % alphabet.length]}${issued.slice(i + 1)}`;
    });
    const replies = await inBatches(altered, 8, (cursor) =>
      list(`?status=available&limit=5&cursor=${encodeURIComponent(cursor)}`),
    );
    for (const [i, reply] of replies.entries()) expect(reply.status, `altered at ${i}: ${altered[i]}`).toBe(400);
    expectBadRequest(replies[0]!, 'cursor');
  });

  it('used with a different status is 400', async () => {
    const available = await cursorOf('?status=available&limit=5');
    const unfiltered = await cursorOf('?limit=5');
    expectBadRequest(await list(`?status=sold&limit=5&cursor=${available}`), 'cursor');
    expectBadRequest(await list(`?limit=5&cursor=${available}`), 'cursor');
    expectBadRequest(await list(`?status=available&limit=5&cursor=${unfiltered}`), 'cursor');
    // …and still works with its own.
    expect((await list(`?status=available&limit=5&cursor=${available}`)).status).toBe(200);
  });

  it('empty or repeated is 400', async () => {
    const issued = await cursorOf('?limit=5');
    expectBadRequest(await list('?limit=5&cursor='), 'cursor');
    expectBadRequest(await list(`?limit=5&cursor=${issued}&cursor=${issued}`), 'cursor');
  });
});
