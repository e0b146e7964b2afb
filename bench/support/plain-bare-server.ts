// The independent floor of `npm run bench` part 1: the floor's handlers (bench/floor/handlers.ts,
// the SDK's default client) behind a plain HTTP server, on plain dynalite, in one process, as
// bare-server.ts but sharing nothing with our server code: none of the embedded DynamoDB's
// patches (its signature check, its atomic item writes, its iterators' repairs), no socket, no
// route matcher of ours. Only the durability is ours, so that a create costs what a durable
// create costs: every LevelDB write synced (dynalite makes an item's index entries and the item
// separate writes: each is synced). The tables are those of shared/dynamodb/tables.ts.
// Prints what bare-server.ts prints (tools/harness/local-server.ts reads it).
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DynamoDBClient,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { tables } from '../../shared/dynamodb/tables.ts';
import { serveBare } from './bare-http.ts';

// Every write synced, in dynalite's own LevelDB (classic-level, as its `level` resolves it).
const fromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
const { ClassicLevel } = createRequire(fromDynalite.resolve('level'))('classic-level') as {
  ClassicLevel: { prototype: Record<'put' | 'del' | 'batch', (...args: unknown[]) => unknown> };
};
const { prototype } = ClassicLevel;
const { put, del, batch } = prototype;
prototype.put = function (key, value, options) {
  return put.call(this, key, value, { ...(options as object), sync: true });
};
prototype.del = function (key, options) {
  return del.call(this, key, { ...(options as object), sync: true });
};
prototype.batch = function (...args) {
  return args.length === 0 ? batch.call(this) : batch.call(this, args[0], { ...(args[1] as object), sync: true });
};

const store = dynalite({ path: process.env.PETSTORE_DATA_DIR!, createTableMs: 0 });
await new Promise<void>((resolve) => store.listen(0, '127.0.0.1', () => resolve()));
const endpoint = `http://127.0.0.1:${(store.address() as AddressInfo).port}`;
Object.assign(process.env, {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  AWS_ENDPOINT_URL_DYNAMODB: endpoint,
});

const admin = new DynamoDBClient({});
for (const table of tables) {
  process.env[table.envVar] = table.name;
  const attributes = new Map<string, string>();
  for (const key of [
    table.partitionKey,
    ...table.indexes.flatMap((i) => [i.partitionKey, ...(i.sortKey ? [i.sortKey] : [])]),
  ])
    attributes.set(key.name, key.type);
  const input: CreateTableCommandInput = {
    TableName: table.name,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attributes].map(([AttributeName, type]) => ({
      AttributeName,
      AttributeType: type as 'S',
    })),
    KeySchema: [{ AttributeName: table.partitionKey.name, KeyType: 'HASH' }],
    ...(table.indexes.length && {
      GlobalSecondaryIndexes: table.indexes.map((index) => ({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey.name, KeyType: 'HASH' as const },
          ...(index.sortKey ? [{ AttributeName: index.sortKey.name, KeyType: 'RANGE' as const }] : []),
        ],
        Projection: { ProjectionType: index.projection },
      })),
    }),
  };
  await admin.send(new CreateTableCommand(input));
  await waitUntilTableExists(
    { client: admin, minDelay: 0.01, maxDelay: 0.2, maxWaitTime: 10 },
    { TableName: table.name },
  );
}
admin.destroy();
const floor = await import('../floor/handlers.ts');

/** The route's floor handler: the API's three routes, matched here by their paths. */
const answer = (method: string, url: URL, body: string) => {
  const [, version, pets, petId, more] = url.pathname.split('/');
  if (version !== 'v1' || pets !== 'pets' || more !== undefined)
    return Promise.resolve({ statusCode: 404, body: '{}' });
  if (petId !== undefined && method === 'GET') return floor.getPet({ pathParameters: { petId } } as never);
  if (petId === undefined && method === 'GET')
    return floor.listPets({ queryStringParameters: Object.fromEntries(url.searchParams) } as never);
  if (petId === undefined && method === 'POST') return floor.createPet({ body } as never);
  return Promise.resolve({ statusCode: 404, body: '{}' });
};

await serveBare(answer, endpoint, () => new Promise<void>((resolve) => store.close(() => resolve())));
