// The bare one-call server that `npm run bench` sets beside `npm start`: the floor's handlers
// (bench/floor/handlers.ts: for each route the one DynamoDB call the service makes, the create a
// conditional put with the service's condition, every write synced as ours are) behind a plain
// HTTP server, on an embedded DynamoDB of its own with its data on disk (PETSTORE_DATA_DIR), as
// the local stage's is; no gateway, auth, validation, ids or logs. The server's overhead is
// whatever it costs beyond this. Prints what `npm start` prints (tools/harness/local-server.ts
// reads it; its key is a stand-in, the bare server takes none) and `DynamoDB at <endpoint>`.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ensureTables, startEmbeddedDynamoDB } from '../../infra/local/embedded-dynamodb.ts';
import { dynamodbEnvironment } from '../../infra/local/function-environment.ts';
import { matchRoute } from '../../infra/local/route-matcher.ts';
import { API_VERSION_PATH } from '../../shared/api/routes.ts';
import { tables } from '../../shared/dynamodb/tables.ts';

const dynamodb = await startEmbeddedDynamoDB(process.env.PETSTORE_DATA_DIR!);
await ensureTables(dynamodb.endpoint);
Object.assign(process.env, dynamodbEnvironment(dynamodb.endpoint));
for (const table of tables) process.env[table.envVar] = table.name;
const floor = await import('../floor/handlers.ts');

/** The route's floor handler, matched as the local gateway matches it. */
const answer = (method: string, url: URL, body: string) => {
  const match = matchRoute(method, url.pathname);
  if (!match) return Promise.resolve({ statusCode: 404, body: '{}' });
  const { pathParameters } = match;
  return floor[match.route.operationId]({
    pathParameters,
    queryStringParameters: Object.fromEntries(url.searchParams),
    body,
  } as never);
};

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    answer(req.method ?? 'GET', new URL(req.url ?? '/', 'http://localhost'), Buffer.concat(chunks).toString('utf8'))
      .catch(() => ({ statusCode: 500, body: '{}' }))
      .then(({ statusCode, body }) => {
        res.writeHead(statusCode, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
        res.end(body);
      });
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
console.log(`DynamoDB at ${dynamodb.endpoint}`);
console.log(`API key (a stand-in: the bare server takes none): pet_bare`);
console.log(`listening at http://127.0.0.1:${(server.address() as AddressInfo).port}${API_VERSION_PATH}`);
process.once('SIGTERM', async () => {
  server.close();
  server.closeAllConnections();
  await dynamodb.close();
  process.exit(0);
});
