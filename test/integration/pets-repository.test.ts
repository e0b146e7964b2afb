// Creating and reading animals in dynalite: ids never collide, a create never
// overwrites, and items hold the four Animal fields and their status index key.
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTable, createTableInput } from '../../infra/local/embedded-dynamodb.ts';
import { MAX_ID, type Pet } from '../../shared/api/schemas.ts';
import { createCursorCodec } from '../../shared/domain/cursor.ts';
import type { IdAllocator } from '../../shared/domain/id-allocator.ts';
import { createPetsRepository, type PetsRepositoryOptions } from '../../shared/dynamodb/pets-repository.ts';
import { countersTable, petsTable } from '../../shared/dynamodb/tables.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { TEST_INDEX_SHARDS } from '../support/index-shards.ts';

let db: TestDynamoDB;
beforeAll(async () => {
  db = await startTestDynamoDB();
});
afterAll(() => db?.close());

/** A repository as one container would have it: its own id allocator, the shared tables. */
const repository = (options: Partial<PetsRepositoryOptions> = {}) =>
  createPetsRepository({
    client: db.plain,
    petsTableName: petsTable.name,
    countersTableName: countersTable.name,
    cursors: createCursorCodec('repository-test-cursor-secret-0123456789'),
    statusShards: TEST_INDEX_SHARDS,
    ...options,
  });

/** Hands out the given ids in turn. */
const fixedIds = (...ids: number[]): IdAllocator & { handedOut: number[] } => {
  const handedOut: number[] = [];
  return {
    handedOut,
    next: async () => {
      const id = ids[handedOut.length];
      if (id === undefined) throw new Error('no more ids');
      handedOut.push(id);
      return id;
    },
  };
};

const rawItem = async (id: number) =>
  (await db.client.send(new GetCommand({ TableName: petsTable.name, Key: { id } }))).Item;
const counterValue = async (table = countersTable.name) =>
  ((await db.client.send(new GetCommand({ TableName: table, Key: { counter: 'petId' } }))).Item?.value as
    | number
    | undefined) ?? 0;
/** The item a create stores for `pet`: its fields and its status index key. */
const storedItem = (pet: Pet) => ({ ...pet, statusShard: `${pet.status}#${pet.id % TEST_INDEX_SHARDS}` });
const seed = (id: number) => {
  const item = { id, name: `seeded ${id}`, categoryId: 42, status: 'sold' };
  return db.client.send(new PutCommand({ TableName: petsTable.name, Item: item })).then(() => item);
};

describe('create', () => {
  test('stores the four Animal fields and the status index key, and returns the four', async () => {
    const pet = await repository().create({ name: 'Rex', categoryId: 3, status: 'pending' });
    expect(pet).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: 3, status: 'pending' });
    const item = await rawItem(pet.id);
    expect(Object.keys(item!).sort()).toEqual(['categoryId', 'id', 'name', 'status', 'statusShard']);
    expect(item).toEqual({ ...pet, statusShard: `pending#${pet.id % TEST_INDEX_SHARDS}` });
    expect(await repository().get(pet.id)).toEqual(pet);
  });

  test('never overwrites: an id already taken is skipped and the item there stays intact', async () => {
    const taken = await seed(5000);
    const ids = fixedIds(5000, 5001);
    const pet = await repository({ ids }).create({ name: 'Newcomer', categoryId: 1, status: 'available' });
    expect(ids.handedOut).toEqual([5000, 5001]);
    expect(pet.id).toBe(5001);
    expect(await rawItem(5000)).toEqual(taken);
    expect(await rawItem(5001)).toEqual(storedItem(pet));
  });

  test('with the real allocator too: ids the counter would hand out next are skipped when taken', async () => {
    // A restored table can hold items above the counter: seed the next block's first ids.
    const next = (await counterValue()) + 1;
    const taken = await Promise.all([seed(next), seed(next + 1)]);
    const pet = await repository().create({ name: 'After the restore', categoryId: 1, status: 'available' });
    expect(pet.id).toBe(next + 2);
    expect(await rawItem(next)).toEqual(taken[0]);
    expect(await rawItem(next + 1)).toEqual(taken[1]);
  });

  test('gives up after a few taken ids rather than looping', async () => {
    await Promise.all([6000, 6001, 6002, 6003, 6004].map(seed));
    const ids = fixedIds(6000, 6001, 6002, 6003, 6004, 6005);
    await expect(repository({ ids }).create({ name: 'x', categoryId: 1, status: 'sold' })).rejects.toBeInstanceOf(
      ConditionalCheckFailedException,
    );
    expect(ids.handedOut).toHaveLength(5);
    expect(await rawItem(6004)).toMatchObject({ name: 'seeded 6004' });
  });

  test('100 parallel creates in two containers get 100 distinct ids, all stored', async () => {
    const containers = [repository(), repository()];
    const pets = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        containers[i % 2]!.create({ name: `parallel ${i}`, categoryId: 1, status: 'available' }),
      ),
    );
    const ids = pets.map((pet) => pet.id);
    expect(new Set(ids).size).toBe(100);
    for (const id of ids) expect(Number.isSafeInteger(id) && id >= 1).toBe(true);
    const stored = await Promise.all(ids.map(rawItem));
    expect(stored).toEqual(pets.map(storedItem));
  });

  test('ids reach 2^53−1 and stop there: past it, create fails and stores nothing', async () => {
    const table = 'counters-near-the-end';
    await createTable(db.client, createTableInput(countersTable, table));
    await db.client.send(new PutCommand({ TableName: table, Item: { counter: 'petId', value: MAX_ID - 100 } }));
    const pet = await repository({ countersTableName: table }).create({
      name: 'Last block',
      categoryId: 1,
      status: 'sold',
    });
    expect(pet.id).toBe(MAX_ID - 99);
    expect(await rawItem(MAX_ID - 99)).toEqual(storedItem(pet));

    const before = (await db.client.send(new ScanCommand({ TableName: petsTable.name, Select: 'COUNT' }))).Count;
    await expect(
      repository({ countersTableName: table }).create({ name: 'Too far', categoryId: 1, status: 'sold' }),
    ).rejects.toThrow('the animal id space is exhausted');
    expect((await db.client.send(new ScanCommand({ TableName: petsTable.name, Select: 'COUNT' }))).Count).toBe(before);
  });
});

describe('get', () => {
  test('an id no animal has is undefined', async () => {
    expect(await repository().get(MAX_ID)).toBeUndefined();
  });

  test('reads only the four fields, whatever else an item holds', async () => {
    await db.client.send(
      new PutCommand({
        TableName: petsTable.name,
        Item: { id: 7000, name: 'Old', categoryId: 2, status: 'sold', legacy: 'x' },
      }),
    );
    expect(await repository().get(7000)).toEqual({ id: 7000, name: 'Old', categoryId: 2, status: 'sold' });
  });
});
