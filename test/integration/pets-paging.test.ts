// Paging through dynalite: following cursors visits every matching animal exactly
// once, filtered pages come from the status index in id order, and the last page
// carries no cursor (so no empty trailing page), exact multiples included.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BadRequestError } from '../../shared/api/errors.ts';
import type { Pet, PetStatus } from '../../shared/api/schemas.ts';
import { createCursorCodec } from '../../shared/domain/cursor.ts';
import type { ListPage, PetsRepository } from '../../shared/domain/stores.ts';
import { createPetsRepository } from '../../shared/dynamodb/pets-repository.ts';
import { countersTable, petsTable } from '../../shared/dynamodb/tables.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { TEST_INDEX_SHARDS } from '../support/index-shards.ts';
import { allPages as allPagesOf } from '../support/listing.ts';

// 250 animals: 100 available, 98 pending (14 × 7), 52 sold, interleaved in id order.
const COUNTS: Record<PetStatus, number> = { available: 100, pending: 98, sold: 52 };
const TOTAL = 250;

let db: TestDynamoDB;
let pets: PetsRepository;
let created: Pet[];

beforeAll(async () => {
  db = await startTestDynamoDB();
  pets = createPetsRepository({
    client: db.plain,
    petsTableName: petsTable.name,
    countersTableName: countersTable.name,
    cursors: createCursorCodec('paging-test-cursor-secret-0123456789'),
    statusShards: TEST_INDEX_SHARDS,
  });
  // A fixed shuffle, so that each status's ids are spread over the whole range.
  const statuses = (Object.entries(COUNTS) as [PetStatus, number][]).flatMap(([status, n]) =>
    Array<PetStatus>(n).fill(status),
  );
  for (let i = statuses.length - 1; i > 0; i--) {
    const j = (i * 7919) % (i + 1);
    [statuses[i], statuses[j]] = [statuses[j]!, statuses[i]!];
  }
  created = [];
  for (let i = 0; i < statuses.length; i += 50) {
    const batch = statuses
      .slice(i, i + 50)
      .map((status, k) => pets.create({ name: `pet ${i + k}`, categoryId: 1 + ((i + k) % 5), status }));
    created.push(...(await Promise.all(batch)));
  }
}, 60_000);
afterAll(() => db?.close());

/** Follows cursors from the first page to the last. */
const allPages = (limit: number, status?: PetStatus) => allPagesOf(pets, limit, status, TOTAL + 1);

const expectWellFormedPaging = (pages: ListPage[], limit: number, expected: Pet[]) => {
  const served = pages.flatMap((page) => page.pets);
  // Every matching animal exactly once, as it was created.
  expect(served).toHaveLength(expected.length);
  expect([...served].sort((a, b) => a.id - b.id)).toEqual([...expected].sort((a, b) => a.id - b.id));
  // Full pages until the last, which alone has no cursor and is never empty.
  expect(pages).toHaveLength(Math.max(1, Math.ceil(expected.length / limit)));
  pages.slice(0, -1).forEach((page) => {
    expect(page.pets).toHaveLength(limit);
    expect(page.nextCursor).toBeTypeOf('string');
  });
  expect(pages.at(-1)!.nextCursor).toBeUndefined();
  if (expected.length > 0) expect(pages.at(-1)!.pets.length).toBeGreaterThan(0);
};

describe('listing with a status filter (the status index)', () => {
  test.each([
    ['available', 7],
    ['available', 100], // exactly one full page: no cursor to an empty page
    ['available', 20],
    ['pending', 7], // 98 = 14 × 7
    ['pending', 100],
    ['sold', 7],
    ['sold', 1],
  ] as const)('%s, limit %d: each animal once, ordered by id', async (status, limit) => {
    const expected = created.filter((pet) => pet.status === status);
    expect(expected).toHaveLength(COUNTS[status]);
    const pages = await allPages(limit, status);
    expectWellFormedPaging(pages, limit, expected);
    const ids = pages.flatMap((page) => page.pets.map((pet) => pet.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  test('a cursor from one filter is refused with another, and without one', async () => {
    const { nextCursor } = await pets.list({ limit: 7, status: 'sold' });
    await expect(pets.list({ limit: 7, status: 'pending', cursor: nextCursor })).rejects.toBeInstanceOf(
      BadRequestError,
    );
    await expect(pets.list({ limit: 7, cursor: nextCursor })).rejects.toBeInstanceOf(BadRequestError);
  });
});

describe('listing without a filter (scan)', () => {
  test.each([7, 50, 100])('limit %d: each animal once, no empty trailing page', async (limit) => {
    expectWellFormedPaging(await allPages(limit), limit, created);
  });

  test('the default page of 20 then the rest, with a changing limit along the way', async () => {
    const first = await pets.list({ limit: 20 });
    const rest = await pets.list({ limit: 100, cursor: first.nextCursor });
    const last = await pets.list({ limit: 100, cursor: rest.nextCursor });
    const ids = [...first.pets, ...rest.pets, ...last.pets].map((pet) => pet.id);
    expect(new Set(ids).size).toBe(220);
    expect(last.nextCursor).toBeTypeOf('string');
    expect((await pets.list({ limit: 100, cursor: last.nextCursor })).pets).toHaveLength(30);
  });
});
