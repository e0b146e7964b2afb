// The bare one-call server that `npm run bench` sets beside `npm start`: the floor's handlers
// (bench/floor/handlers.ts: for each route the one DynamoDB call the service makes, the create a
// conditional put with the service's condition, every write synced as ours are) behind a plain
// HTTP server, on an embedded DynamoDB of its own with its data on disk (PETSTORE_DATA_DIR), as
// the local stage's is; no gateway, auth, validation, ids or logs. The server's overhead is
// whatever it costs beyond this. Prints what `npm start` prints (tools/harness/local-server.ts
// reads it; its key is a stand-in, the bare server takes none) and `DynamoDB at <endpoint>`.
import { ensureTables, startEmbeddedDynamoDB } from '../../infra/local/embedded-dynamodb.ts';
import { dynamodbEnvironment } from '../../infra/local/function-environment.ts';
import { matchRoute } from '../../infra/local/route-matcher.ts';
import { tables } from '../../shared/dynamodb/tables.ts';
import { serveBare } from './bare-http.ts';

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

await serveBare(answer, dynamodb.endpoint, () => dynamodb.close());
