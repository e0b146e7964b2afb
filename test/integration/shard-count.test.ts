// The status index's shard count can only grow at run time (shared/dynamodb/shard-count.ts),
// whatever N each function runs with: a stack or CodeDeploy rollback, `git switch --detach <tag>
// && npm run deploy`, or a CodeDeploy canary where createPet already runs the new N and listPets
// the old one. Over dynalite, behind the counting proxy: the listings of a function with a
// lower N than was ever written hold every animal; the writers record N before their first
// put; a reader reads the record at most once a refresh period, not once a request.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { localClientConfig } from '../../infra/local/function-environment.ts';
import { ServiceUnavailableError } from '../../shared/api/errors.ts';
import type { Pet, PetStatus } from '../../shared/api/schemas.ts';
import { createCursorCodec } from '../../shared/domain/cursor.ts';
import type { PetsRepository } from '../../shared/domain/stores.ts';
import { createDynamoDBClient, DYNAMODB_TIME_BUDGET } from '../../shared/dynamodb/client.ts';
import { createPetsRepository } from '../../shared/dynamodb/pets-repository.ts';
import { createShardCount } from '../../shared/dynamodb/shard-count.ts';
import { countersTable, petsTable } from '../../shared/dynamodb/tables.ts';
import { type DynamoDBProxy, startDynamoDBProxy } from '../../tools/harness/dynamodb-proxy.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { allPages } from '../support/listing.ts';

const cursors = createCursorCodec('shard-count-test-cursor-secret-0123');
/** Longer than a reader may trust the record it read last (shard-count.ts: 1 s). */
const REFRESH_WAIT_MS = 1500;

let db: TestDynamoDB;
let proxy: DynamoDBProxy;
beforeAll(async () => {
  db = await startTestDynamoDB();
  proxy = await startDynamoDBProxy(db.endpoint);
});
afterAll(async () => {
  await proxy?.close();
  await db?.close();
});
beforeEach(() => {
  proxy.failWhen = undefined;
});

/** A function's repository with its own N: a container of that function, on the proxy. */
const container = (statusShards: number): PetsRepository =>
  createPetsRepository({
    client: createDynamoDBClient(DYNAMODB_TIME_BUDGET, undefined, localClientConfig(proxy.endpoint)),
    petsTableName: petsTable.name,
    countersTableName: countersTable.name,
    cursors,
    statusShards,
  });

const listed = async (pets: PetsRepository, status: PetStatus) =>
  (await allPages(pets, 7, status)).flatMap((page) => page.pets).map((pet) => pet.id);

const createMany = async (pets: PetsRepository, status: PetStatus, count: number): Promise<Pet[]> => {
  const created: Pet[] = [];
  for (let i = 0; i < count; i++) created.push(await pets.create({ name: `s${i}`, categoryId: 9, status }));
  return created;
};

test('a lower N than was written (a rollback, an older tag deployed) still lists every animal', async () => {
  const written = await createMany(container(4), 'pending', 24);
  // Ids mod 4 cover all four shards: three quarters of them are on shards a reader at N = 1 never queried.
  expect(new Set(written.map((pet) => pet.id % 4)).size).toBe(4);
  for (const lower of [1, 2, 3]) expect(await listed(container(lower), 'pending')).toEqual(written.map((p) => p.id));
});

test('a CodeDeploy canary: listPets at the old N, already warm, sees what createPet writes at the new N', async () => {
  const reader = container(1);
  const before = await createMany(container(1), 'sold', 3);
  expect(await listed(reader, 'sold')).toEqual(before.map((p) => p.id));
  const after = await createMany(container(3), 'sold', 9);
  // The record the reader read last may be trusted for its refresh period, then it is read again.
  await new Promise((resolve) => setTimeout(resolve, REFRESH_WAIT_MS));
  expect(await listed(reader, 'sold')).toEqual([...before, ...after].map((p) => p.id));
});

test('a writer records its N before its first put, and never lowers the record', async () => {
  const fresh = await startTestDynamoDB();
  const wired = await startDynamoDBProxy(fresh.endpoint);
  const writer = (statusShards: number) =>
    createPetsRepository({
      client: createDynamoDBClient(DYNAMODB_TIME_BUDGET, undefined, localClientConfig(wired.endpoint)),
      petsTableName: petsTable.name,
      countersTableName: countersTable.name,
      cursors,
      statusShards,
    });
  const record = async () =>
    (await fresh.client.send(new GetCommand({ TableName: countersTable.name, Key: { counter: 'statusIndexShards' } })))
      .Item?.value;
  try {
    await writer(4).create({ name: 'first', categoryId: 1, status: 'available' });
    const calls = wired.requests.map((r) => `${r.operation} ${r.table}`);
    // The raise, then the id block (UpdateItem of the same table), then the animal.
    expect(calls).toEqual([
      `UpdateItem ${countersTable.name}`,
      `UpdateItem ${countersTable.name}`,
      `PutItem ${petsTable.name}`,
    ]);
    expect(await record()).toBe(4);
    await writer(2).create({ name: 'second', categoryId: 1, status: 'available' });
    expect(await record()).toBe(4);
    // A writer whose record could not be raised writes nothing (no animal on a shard no reader knows).
    wired.failWhen = (r) => r.operation === 'UpdateItem' && r.table === countersTable.name;
    const failing = writer(8);
    await expect(failing.create({ name: 'third', categoryId: 1, status: 'available' })).rejects.toThrow();
    expect(wired.requests.filter((r) => r.operation === 'PutItem' && r.table === petsTable.name)).toHaveLength(2);
  } finally {
    await wired.close();
    await fresh.close();
  }
}, 60_000);

test('no DynamoDB call per listing: the record is read at most twice a second', async () => {
  // The record is the most any test above wrote with: 4.
  const reader = container(2);
  await createMany(container(2), 'available', 5);
  proxy.reset();
  const started = Date.now();
  for (let i = 0; i < 40; i++) await reader.list({ limit: 3, status: 'available' });
  const elapsed = Date.now() - started;
  const reads = proxy.requests.filter((r) => r.operation === 'GetItem' && r.table === countersTable.name);
  expect(proxy.requests.filter((r) => r.operation === 'Query')).toHaveLength(40 * 4);
  expect(reads.length).toBeGreaterThanOrEqual(1);
  expect(reads.length).toBeLessThanOrEqual(Math.ceil(elapsed / 500) + 1);
  expect(proxy.requests).toHaveLength(40 * 4 + reads.length);
});

/** Nothing the listing started reaches DynamoDB after it answered (in Lambda: across the freeze). */
const expectNothingInFlight = async () => {
  const answered = proxy.requests.length;
  // Past the budget's back-offs (50 then 100 ms) and an attempt.
  await new Promise((resolve) => setTimeout(resolve, 400));
  expect(proxy.requests).toHaveLength(answered);
};

const recordReads = () => proxy.requests.filter((r) => r.operation === 'GetItem' && r.table === countersTable.name);

test('a re-read that fails within the second a read is trusted: the listing answers with the shards it knows', async () => {
  // The record is the most any test above wrote with (4); this reader runs at N = 1, on a clock of its own.
  let clock = 0;
  const failures: unknown[] = [];
  const count = createShardCount(
    createDynamoDBClient(DYNAMODB_TIME_BUDGET, undefined, localClientConfig(proxy.endpoint)),
    countersTable.name,
    1,
    (error) => failures.push(error),
    () => clock,
  );
  // Each shard's "page" is its number: what matters is which shards a listing covers.
  const shards = (from: number, to: number) => Array.from({ length: to - from }, async (_, i) => from + i);
  expect(await count.cover(shards)).toEqual([0, 1, 2, 3]);

  proxy.reset();
  proxy.failWhen = (r) => r.operation === 'GetItem';
  clock = 600; // due for a re-read (every 500 ms), still trusted (1 s)
  expect(await count.cover(shards)).toEqual([0, 1, 2, 3]);
  expect(failures).toHaveLength(1);
  expect(failures[0]).toBeInstanceOf(ServiceUnavailableError);
  await expectNothingInFlight();
  const tried = recordReads().length;
  expect(tried).toBeGreaterThanOrEqual(1);
  // Still due: the next listing tries again.
  clock = 700;
  expect(await count.cover(shards)).toEqual([0, 1, 2, 3]);
  expect(recordReads().length).toBeGreaterThan(tried);
  expect(failures).toHaveLength(2);

  // A second after the last read that succeeded, the count it gave proves nothing: no listing without the record.
  clock = 1000;
  await expect(count.cover(shards)).rejects.toBeInstanceOf(ServiceUnavailableError);
  expect(failures).toHaveLength(2);
  proxy.failWhen = undefined;
  expect(await count.cover(shards)).toEqual([0, 1, 2, 3]);
}, 30_000);

test('a container that never read the record lists nothing without it: the listing fails, its Queries settled', async () => {
  const reader = container(1);
  proxy.reset();
  proxy.failWhen = (r) => r.operation === 'GetItem';
  await expect(reader.list({ limit: 5, status: 'pending' })).rejects.toBeInstanceOf(ServiceUnavailableError);
  await expectNothingInFlight();
  // Its Query was sent with the read, in parallel, and answered before the listing did.
  expect(proxy.requests.filter((r) => r.operation === 'Query')).toHaveLength(1);
  proxy.failWhen = undefined;
  expect((await reader.list({ limit: 100, status: 'pending' })).pets).toHaveLength(24);
}, 30_000);
