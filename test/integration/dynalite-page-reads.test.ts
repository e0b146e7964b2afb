// The embedded DynamoDB's page reads (infra/local/dynalite-page-reads.ts): every Query and Scan page
// held to what dynalite's own `queryTable` answers (a pristine copy of its db/index.js, loaded from
// the package's file, untouched by the patch), over HTTP on the store on disk, for walks of whole
// tables and indexes at varied limits, both directions, with filters, projections, counts,
// capacity and segments; and each read's LevelDB iterator closed.
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  DynamoDBClient,
  PutItemCommand,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
  type ScanCommandInput,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fromDynalite, fromLevel } from '../../infra/local/dynalite-modules.ts';
import { type EmbeddedDynamoDB, ensureTables, startEmbeddedDynamoDB } from '../../infra/local/embedded-dynamodb.ts';
import { LOCAL_AWS_ENV, localClientConfig } from '../../infra/local/function-environment.ts';
import { petsTable, STATUS_INDEX, STATUS_SHARD_ATTRIBUTE } from '../../shared/dynamodb/tables.ts';
import { newDataDir } from '../../tools/harness/local-server.ts';

type QueryTable = (...args: unknown[]) => void;
const dynaliteDb = fromDynalite('./db') as { queryTable: QueryTable };

/** dynalite's `queryTable` as the library ships it: a fresh copy of its db/index.js. */
const libraryQueryTable = (): QueryTable => {
  const file = fromDynalite.resolve('./db/index.js');
  const module = { exports: {} as { queryTable: QueryTable } };
  new Function('require', 'module', 'exports', readFileSync(file, 'utf8'))(createRequire(file), module, module.exports);
  return module.exports.queryTable;
};
const library = libraryQueryTable();
const patched = dynaliteDb.queryTable;

// Every iterator the store opens, and the entries each native read returns.
const { ClassicLevel } = fromLevel('classic-level') as { ClassicLevel: { prototype: Record<string, unknown> } };
const binding = fromLevel('classic-level/binding.js') as {
  iterator_nextv(context: unknown, size: number): Promise<unknown[]>;
};
type Iterator = { next(): Promise<unknown> };
const opened: Iterator[] = [];
const reads: number[] = [];
const { values } = ClassicLevel.prototype as { values: (...args: unknown[]) => Iterator };
const read = binding.iterator_nextv;

let dataDir: string;
let dynamodb: EmbeddedDynamoDB;
let client: DynamoDBClient;
const SHARDS = ['available#0', 'sold#0', 'sold#1'];

beforeAll(async () => {
  ClassicLevel.prototype.values = function (this: unknown, ...args: unknown[]) {
    const iterator = values.apply(this, args);
    opened.push(iterator);
    return iterator;
  };
  binding.iterator_nextv = async (context, size) => {
    const entries = await read(context, size);
    reads.push(entries.length);
    return entries;
  };
  dataDir = newDataDir();
  dynamodb = await startEmbeddedDynamoDB(dataDir);
  Object.assign(process.env, LOCAL_AWS_ENV);
  client = new DynamoDBClient(localClientConfig(dynamodb.endpoint));
  await ensureTables(dynamodb.endpoint);
  // 90 animals over three status shards, names of varied lengths, some with an extra attribute.
  for (let id = 1; id <= 90; id++) {
    const Item = {
      id: { N: String(id * 7) },
      [STATUS_SHARD_ATTRIBUTE]: { S: SHARDS[id % 3]! },
      name: { S: 'x'.repeat(1 + ((id * 13) % 40)) },
      ...(id % 4 === 0 && { tag: { S: `t${id}` } }),
    };
    await client.send(new PutItemCommand({ TableName: petsTable.name, Item }));
  }
}, 60_000);

afterAll(async () => {
  client?.destroy();
  await dynamodb?.close();
  ClassicLevel.prototype.values = values;
  binding.iterator_nextv = read;
  dynaliteDb.queryTable = patched;
  rmSync(dataDir, { recursive: true, force: true });
});

type Input = QueryCommandInput | ScanCommandInput;
/** The answer (or the error's name and message) with `queryTable` set to `implementation`. */
const answer = async (implementation: QueryTable, input: Input) => {
  dynaliteDb.queryTable = implementation;
  try {
    const command =
      'KeyConditionExpression' in input ? new QueryCommand(input) : new ScanCommand(input as ScanCommandInput);
    const { $metadata: _, ...output } = await client.send(command as QueryCommand);
    return output;
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  } finally {
    dynaliteDb.queryTable = patched;
  }
};

/** Walks every page of `input` on the patched store, each page held to the library's answer. */
const walk = async (input: Input) => {
  let pages = 0;
  let ExclusiveStartKey: Input['ExclusiveStartKey'];
  do {
    const page = { ...input, ...(ExclusiveStartKey && { ExclusiveStartKey }) };
    const ours = await answer(patched, page);
    expect(ours, JSON.stringify(page)).toStrictEqual(await answer(library, page));
    ExclusiveStartKey = 'LastEvaluatedKey' in ours ? ours.LastEvaluatedKey : undefined;
    pages++;
  } while (ExclusiveStartKey && pages < 200);
  return pages;
};

const byShard = (shard: string): QueryCommandInput => ({
  TableName: petsTable.name,
  IndexName: STATUS_INDEX,
  KeyConditionExpression: '#s = :s',
  ExpressionAttributeNames: { '#s': STATUS_SHARD_ATTRIBUTE },
  ExpressionAttributeValues: { ':s': { S: shard } },
});
const LIMITS = [undefined, 1, 2, 5, 19, 20, 21, 29, 30, 31, 89, 90, 91];

it('a Scan of the table, page by page, is the library Scan at every limit', async () => {
  for (const Limit of LIMITS) await walk({ TableName: petsTable.name, Limit });
  expect(await walk({ TableName: petsTable.name, Limit: 7 })).toBe(13); // 90 animals: 12 pages of 7 and one of 6
});

it('a Scan of the status index, and in segments, is the library Scan', async () => {
  for (const Limit of LIMITS) await walk({ TableName: petsTable.name, IndexName: STATUS_INDEX, Limit });
  for (const Segment of [0, 1, 2])
    for (const Limit of [undefined, 4, 30])
      await walk({ TableName: petsTable.name, Segment, TotalSegments: 3, Limit, ReturnConsumedCapacity: 'TOTAL' });
});

it('a Query of the status index, both ways, with key conditions, is the library Query', async () => {
  for (const shard of [...SHARDS, 'none#0'])
    for (const Limit of LIMITS)
      for (const ScanIndexForward of [true, false]) await walk({ ...byShard(shard), Limit, ScanIndexForward });
  const sold = byShard('sold#1');
  for (const [condition, values] of [
    ['#s = :s AND id > :a', { ':a': { N: '200' } }],
    ['#s = :s AND id <= :a', { ':a': { N: '300' } }],
    ['#s = :s AND id BETWEEN :a AND :b', { ':a': { N: '100' }, ':b': { N: '500' } }],
    ['#s = :s AND id = :a', { ':a': { N: '35' } }],
  ] as const)
    for (const Limit of [undefined, 1, 3, 10])
      for (const ScanIndexForward of [true, false])
        await walk({
          ...sold,
          KeyConditionExpression: condition,
          ExpressionAttributeValues: { ...sold.ExpressionAttributeValues, ...values },
          Limit,
          ScanIndexForward,
        });
});

it('filters, projections, counts and consumed capacity are the library answer', async () => {
  const sold = byShard('sold#0');
  for (const Limit of [undefined, 3, 10, 30]) {
    await walk({ ...sold, Limit, FilterExpression: 'attribute_exists(tag)' });
    await walk({
      ...sold,
      Limit,
      ProjectionExpression: 'id, #n',
      ExpressionAttributeNames: { '#s': STATUS_SHARD_ATTRIBUTE, '#n': 'name' },
    });
    await walk({ ...sold, Limit, Select: 'COUNT' });
    await walk({ ...sold, Limit, ReturnConsumedCapacity: 'INDEXES' });
    await walk({
      TableName: petsTable.name,
      Limit,
      ReturnConsumedCapacity: 'INDEXES',
      FilterExpression: 'size(#n) > :l',
      ExpressionAttributeNames: { '#n': 'name' },
      ExpressionAttributeValues: { ':l': { N: '20' } },
    });
    await walk({ TableName: petsTable.name, Limit, ScanFilter: { tag: { ComparisonOperator: 'NOT_NULL' } } });
    await walk({ ...sold, Limit, ConsistentRead: true });
  }
  // an ExclusiveStartKey dynalite refuses, refused the same way
  await walk({ ...sold, ExclusiveStartKey: { id: { N: '7' } } });
});

it('a page of 20 takes one native read, and every iterator a listing opened is closed', async () => {
  reads.length = 0;
  opened.length = 0;
  const page = await answer(patched, { ...byShard('sold#0'), Limit: 20 });
  expect(page).toMatchObject({ Count: 20, ScannedCount: 20 });
  expect(reads).toEqual([21]); // dynalite's own path reads 1, then the rest
  for (let n = 0; n < 20; n++) await answer(patched, { TableName: petsTable.name, Limit: 1 + n });
  expect(opened.length).toBe(21);
  for (const iterator of opened)
    await expect(iterator.next()).rejects.toMatchObject({ code: 'LEVEL_ITERATOR_NOT_OPEN' });
});
