// The sharded status index on the wire (dynalite behind the counting proxy): at N = 4 any
// sequence of creates and pages gives exactly the listing N = 1 gives; a filtered page is N
// Queries (one at N = 1), an unfiltered one still one Scan; a status's index writes spread
// evenly over its N key values; and growing N loses no animal written under a smaller one.
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { localClientConfig } from '../../infra/local/function-environment.ts';
import type { PetStatus } from '../../shared/api/schemas.ts';
import { createCursorCodec } from '../../shared/domain/cursor.ts';
import { createIdAllocator } from '../../shared/domain/id-allocator.ts';
import type { ListPage, PetsRepository } from '../../shared/domain/stores.ts';
import { createDynamoDBClient, DYNAMODB_TIME_BUDGET } from '../../shared/dynamodb/client.ts';
import { createPetsRepository } from '../../shared/dynamodb/pets-repository.ts';
import { statusShardKey, statusShardKeys } from '../../shared/dynamodb/status-shards.ts';
import { countersTable, petsTable, STATUS_INDEX, STATUS_SHARD_ATTRIBUTE } from '../../shared/dynamodb/tables.ts';
import { type DynamoDBProxy, startDynamoDBProxy } from '../../tools/harness/dynamodb-proxy.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { allPages } from '../support/listing.ts';

const STATUSES: readonly PetStatus[] = ['available', 'pending', 'sold'];
const cursors = createCursorCodec('shards-test-cursor-secret-0123456789');

let one: TestDynamoDB;
let four: TestDynamoDB;
let proxy: DynamoDBProxy;
beforeAll(async () => {
  [one, four] = await Promise.all([startTestDynamoDB(), startTestDynamoDB()]);
  proxy = await startDynamoDBProxy(four.endpoint);
});
afterAll(async () => {
  await proxy?.close();
  await Promise.all([one?.close(), four?.close()]);
});

const repository = (db: TestDynamoDB, statusShards: number): PetsRepository =>
  createPetsRepository({
    client: db.plain,
    petsTableName: petsTable.name,
    countersTableName: countersTable.name,
    cursors,
    statusShards,
  });

/** Ids only, and whether a next page was offered: the cursors' bytes differ by nothing but their HMAC input, which is the same. */
const shape = (pages: ListPage[]) => pages.map((p) => ({ ids: p.pets.map((pet) => pet.id), next: !!p.nextCursor }));

describe('N = 4 lists exactly what N = 1 lists', () => {
  test('any sequence of creates and pages (property)', async () => {
    // Both tables get the same creates in the same order, so the same ids, over every run.
    const unsharded = repository(one, 1);
    const sharded = repository(four, 4);
    const command = fc.oneof(
      fc.record({ kind: fc.constant('create' as const), status: fc.constantFrom(...STATUSES), count: fc.nat(12) }),
      fc.record({
        kind: fc.constant('list' as const),
        status: fc.option(fc.constantFrom(...STATUSES), { nil: undefined }),
        limit: fc.integer({ min: 1, max: 30 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(command, { maxLength: 8 }), async (commands) => {
        for (const c of commands) {
          if (c.kind === 'create') {
            for (let i = 0; i < c.count; i++) {
              const pet = { name: `pet ${i}`, categoryId: 1, status: c.status };
              expect(await sharded.create(pet)).toEqual(await unsharded.create(pet));
            }
          } else {
            const [expected, actual] = await Promise.all([
              allPages(unsharded, c.limit, c.status),
              allPages(sharded, c.limit, c.status),
            ]);
            expect(shape(actual)).toEqual(shape(expected));
            // The cursors themselves are the same: the form did not change.
            expect(actual.map((p) => p.nextCursor)).toEqual(expected.map((p) => p.nextCursor));
          }
        }
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});

describe('on the wire', () => {
  test('a filtered page is N Queries, an unfiltered page one Scan', async () => {
    for (const shards of [1, 4]) {
      // A table of its own: the most shards its writers used is this N (shard-count.ts).
      const db = await startTestDynamoDB();
      const wire = await startDynamoDBProxy(db.endpoint);
      try {
        const pets = createPetsRepository({
          client: createDynamoDBClient(DYNAMODB_TIME_BUDGET, undefined, localClientConfig(wire.endpoint)),
          petsTableName: petsTable.name,
          countersTableName: countersTable.name,
          cursors,
          statusShards: shards,
        });
        for (let i = 0; i < 30; i++) await pets.create({ name: `wire ${i}`, categoryId: 2, status: 'sold' });
        // Besides, at most one read of the shard record a second (shard-count.ts), in parallel.
        const queries = () => {
          const calls = wire.requests.map((r) => `${r.operation} ${r.table}`);
          const record = calls.filter((call) => call === `GetItem ${countersTable.name}`);
          expect(record.length).toBeLessThanOrEqual(1);
          return calls.filter((call) => !record.includes(call));
        };
        wire.reset();
        const first = await pets.list({ limit: 5, status: 'sold' });
        expect(queries()).toEqual(Array(shards).fill(`Query ${petsTable.name}`));
        wire.reset();
        await pets.list({ limit: 5, status: 'sold', cursor: first.nextCursor });
        expect(queries()).toEqual(Array(shards).fill(`Query ${petsTable.name}`));
        wire.reset();
        await pets.list({ limit: 5 });
        expect(wire.requests.map((r) => r.operation)).toEqual(['Scan']);
      } finally {
        await wire.close();
        await db.close();
      }
    }
  });
});

describe("index writes spread evenly over a status's N key values", () => {
  const within10Percent = (counts: Map<string, number>, shards: number, total: number) => {
    expect(counts.size).toBe(shards);
    for (const count of counts.values())
      expect(Math.abs(count - total / shards)).toBeLessThanOrEqual(total / shards / 10);
  };

  test('10,000 creates from the ids the allocator hands out, three containers interleaved', async () => {
    let counter = 0;
    const reserve = async (size: number) => (counter += size);
    const containers = [createIdAllocator(reserve), createIdAllocator(reserve), createIdAllocator(reserve)];
    const counts = new Map<string, number>();
    for (let i = 0; i < 10_000; i++) {
      const key = statusShardKey('available', await containers[i % 3]!.next(), 4);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    within10Percent(counts, 4, 10_000);
  });

  test('a real run: 400 creates, counted per key value in the index', async () => {
    const pets = repository(four, 4);
    const before = await countPerKey('pending');
    for (let i = 0; i < 400; i += 20)
      await Promise.all(
        Array.from({ length: 20 }, (_, k) =>
          pets.create({ name: `spread ${i + k}`, categoryId: 3, status: 'pending' }),
        ),
      );
    const after = await countPerKey('pending');
    within10Percent(new Map([...after].map(([key, n]) => [key, n - (before.get(key) ?? 0)])), 4, 400);
  }, 60_000);

  const countPerKey = async (status: PetStatus) => {
    const counts = new Map<string, number>();
    for (const key of statusShardKeys(status, 4)) {
      let total = 0;
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await four.client.send(
          new QueryCommand({
            TableName: petsTable.name,
            IndexName: STATUS_INDEX,
            KeyConditionExpression: '#k = :k',
            ExpressionAttributeNames: { '#k': STATUS_SHARD_ATTRIBUTE },
            ExpressionAttributeValues: { ':k': key },
            Select: 'COUNT',
            ExclusiveStartKey,
          }),
        );
        total += page.Count ?? 0;
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      counts.set(key, total);
    }
    return counts;
  };
});

test('growing N loses nothing: animals written at N = 1 and N = 2 are all listed at N = 4', async () => {
  const db = await startTestDynamoDB();
  try {
    const created = [];
    for (const shards of [1, 2, 4])
      for (let i = 0; i < 7; i++)
        created.push(await repository(db, shards).create({ name: `g${i}`, categoryId: 1, status: 'sold' }));
    const pages = await allPages(repository(db, 4), 3, 'sold');
    expect(pages.flatMap((p) => p.pets)).toEqual(created);
  } finally {
    await db.close();
  }
});
