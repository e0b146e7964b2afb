// The LevelDB iterators behind the local stage's Query and Scan (infra/local/dynalite-iterators.ts):
// dynalite 4.0.0 ends each by calling `return()`, which the patch supplies (else every listing
// leaves an iterator open for the life of the server); and classic-level's native reads return at
// most MAX_ENTRIES_PER_READ entries (else each keeps room for 1,000 until V8 collects it).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, expect, it } from 'vitest';
import { MAX_ENTRIES_PER_READ } from '../../infra/local/dynalite-iterators.ts';
import { fromDynalite, fromLevel } from '../../infra/local/dynalite-modules.ts';
import { ensureTables, startEmbeddedDynamoDB } from '../../infra/local/embedded-dynamodb.ts';
import { LOCAL_AWS_ENV, localClientConfig } from '../../infra/local/function-environment.ts';
import { petsTable, STATUS_INDEX, STATUS_SHARD_ATTRIBUTE } from '../../shared/dynamodb/tables.ts';
import { newDataDir } from '../../tools/harness/local-server.ts';

// The LevelDB packages exactly as dynalite resolves them.
const { MemoryLevel } = fromDynalite('memory-level');
const { ClassicLevel } = fromLevel('classic-level');
const binding = fromLevel('classic-level/binding.js') as {
  iterator_nextv(context: unknown, size: number): Promise<unknown[]>;
};

/** The number of entries each native read returned while `body` ran. */
const nativeReads = async (body: () => Promise<void>): Promise<number[]> => {
  const read = binding.iterator_nextv;
  const counts: number[] = [];
  binding.iterator_nextv = async (context, size) => {
    const entries = await read(context, size);
    counts.push(entries.length);
    return entries;
  };
  try {
    await body();
  } finally {
    binding.iterator_nextv = read;
  }
  return counts;
};

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it('return() closes a LevelDB iterator, as dynalite expects', async () => {
  const db = new MemoryLevel({ valueEncoding: 'json' });
  await db.batch([1, 2, 3].map((n) => ({ type: 'put', key: `k${n}`, value: { n } })));
  for (const iterator of [db.values({ limit: 2 }), db.keys(), db.iterator()]) {
    expect(await iterator.next()).toBeDefined();
    await iterator.return();
    await expect(iterator.next()).rejects.toMatchObject({ code: 'LEVEL_ITERATOR_NOT_OPEN' });
  }
  await db.close();
});

it(`a LevelDB iterator on disk reads its entries ${MAX_ENTRIES_PER_READ} at most at a time, and every one of them`, async () => {
  const dir = newDataDir();
  dirs.push(dir);
  const db = new ClassicLevel(join(dir, 'store'));
  const keys = Array.from({ length: 500 }, (_, n) => `k${String(n).padStart(3, '0')}`);
  await db.batch(keys.map((key) => ({ type: 'put', key, value: 'v' })));
  const seen: string[] = [];
  // Entries this small fit 1,000 into classic-level's 16 KiB batch: only the cap bounds them.
  const reads = await nativeReads(async () => {
    for await (const key of db.keys()) seen.push(key);
  });
  await db.close();
  expect(seen).toEqual(keys);
  expect(reads.length).toBeGreaterThan(500 / MAX_ENTRIES_PER_READ);
  expect(Math.max(...reads)).toBeLessThanOrEqual(MAX_ENTRIES_PER_READ);
});

it('the embedded DynamoDB answers a status index Query of 300 animals from reads of a bounded size', async () => {
  const dataDir = newDataDir();
  dirs.push(dataDir);
  const dynamodb = await startEmbeddedDynamoDB(dataDir);
  Object.assign(process.env, LOCAL_AWS_ENV);
  const client = new DynamoDBClient(localClientConfig(dynamodb.endpoint));
  try {
    await ensureTables(dynamodb.endpoint);
    for (let id = 1; id <= 300; id++) {
      const Item = { id: { N: String(id) }, [STATUS_SHARD_ATTRIBUTE]: { S: 'sold#0' }, name: { S: 'x' } };
      await client.send(new PutItemCommand({ TableName: petsTable.name, Item }));
    }
    let ids: string[] = [];
    const reads = await nativeReads(async () => {
      const answer = await client.send(
        new QueryCommand({
          TableName: petsTable.name,
          IndexName: STATUS_INDEX,
          KeyConditionExpression: '#shard = :shard',
          ExpressionAttributeNames: { '#shard': STATUS_SHARD_ATTRIBUTE },
          ExpressionAttributeValues: { ':shard': { S: 'sold#0' } },
        }),
      );
      ids = (answer.Items ?? []).map((item) => item.id!.N!);
    });
    expect(ids).toEqual(Array.from({ length: 300 }, (_, n) => String(n + 1)));
    expect(Math.max(...reads)).toBeLessThanOrEqual(MAX_ENTRIES_PER_READ);
  } finally {
    client.destroy();
    await dynamodb.close();
  }
});
