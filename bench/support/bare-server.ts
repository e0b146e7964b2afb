// The bare one-call server that `npm run bench` sets beside `npm start`: for each route the
// one DynamoDB call the service makes (shared/dynamodb/pets-repository.ts), written out (the
// create a conditional put with the service's condition, every write synced as ours are),
// through a DocumentClient with the SDK's defaults, on an embedded DynamoDB of its own with
// its data on disk, as the local stage's is; no gateway, auth, validation, ids or logs.
// The server's overhead is whatever it costs beyond this. Prints `listening at <url>` and
// `DynamoDB at <endpoint>` once it listens; stops on SIGTERM.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTables, startEmbeddedDynamoDB } from '../../infra/local/embedded-dynamodb.ts';
import { localClientConfig } from '../../infra/local/function-environment.ts';
import { API_VERSION_PATH } from '../../shared/api/routes.ts';
import { petsTable, STATUS_INDEX } from '../../shared/dynamodb/tables.ts';

/** Far above any id the service or the seeding hands out, so bare creates never collide. */
let nextId = 2_000_000_000_000;
const TableName = petsTable.name;
const dir = mkdtempSync(join(tmpdir(), 'petstore-bare-'));
const dynamodb = await startEmbeddedDynamoDB(dir);
await ensureTables(dynamodb.endpoint);
const client = DynamoDBDocumentClient.from(new DynamoDBClient(localClientConfig(dynamodb.endpoint)));

const answer = async (method: string, url: URL, body: string): Promise<[number, unknown]> => {
  const path = url.pathname.slice(API_VERSION_PATH.length);
  const id = /^\/pets\/(\d+)$/.exec(path)?.[1];
  if (method === 'GET' && id) {
    const { Item } = await client.send(new GetCommand({ TableName, Key: { id: Number(id) } }));
    return Item ? [200, Item] : [404, {}];
  }
  if (method === 'GET' && path === '/pets') {
    const limit = Number(url.searchParams.get('limit') ?? 20);
    const status = url.searchParams.get('status');
    const { Items = [] } = await client.send(
      status
        ? new QueryCommand({
            TableName,
            IndexName: STATUS_INDEX,
            Limit: limit + 1,
            // One shard (N = 1), the service's default: one Query, as the service makes.
            KeyConditionExpression: 'statusShard = :key',
            ExpressionAttributeValues: { ':key': `${status}#0` },
          })
        : new ScanCommand({ TableName, Limit: limit + 1 }),
    );
    return [200, Items.slice(0, limit)];
  }
  if (method === 'POST' && path === '/pets') {
    const pet = { id: nextId++, status: 'available', ...(JSON.parse(body) as object) } as Record<string, unknown>;
    pet.statusShard = `${pet.status}#0`; // the index key at N = 1
    // The service's very condition (pets-repository.ts), whose parsing the embedded DynamoDB pays for.
    await client.send(
      new PutCommand({
        TableName,
        Item: pet,
        ConditionExpression:
          'attribute_not_exists(id) OR (#name = :name AND categoryId = :categoryId AND #status = :status)',
        ExpressionAttributeNames: { '#name': 'name', '#status': 'status' },
        ExpressionAttributeValues: { ':name': pet.name, ':categoryId': pet.categoryId, ':status': pet.status },
      }),
    );
    return [201, pet];
  }
  return [404, {}];
};

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    answer(req.method ?? 'GET', new URL(req.url ?? '/', 'http://localhost'), Buffer.concat(chunks).toString('utf8'))
      .catch((): [number, unknown] => [500, {}])
      .then(([status, payload]) => {
        const text = JSON.stringify(payload);
        res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
        res.end(text);
      });
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
console.log(`listening at http://127.0.0.1:${(server.address() as AddressInfo).port}${API_VERSION_PATH}`);
console.log(`DynamoDB at ${dynamodb.endpoint}`);
process.once('SIGTERM', async () => {
  server.close();
  server.closeAllConnections();
  client.destroy();
  await dynamodb.close();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
});
