// The bare one-call server as its own process, for `npm run bench`: the baseline's
// routes (baseline.ts) through a DocumentClient with the SDK's defaults, on an embedded
// DynamoDB of its own with its data on disk, as the local stage's is. `GET /__stats`
// tells the DynamoDB requests it made, counted on the wire, and its CPU time. Sends
// `{ baseUrl, dynamodbEndpoint }` to its parent once it listens; stops on SIGTERM.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ensureTables, startEmbeddedDynamoDB } from '../../infra/local/embedded-dynamodb.ts';
import { localClientConfig } from '../../infra/local/function-environment.ts';
import { petsTable } from '../../shared/dynamodb/tables.ts';
import { startBaselineServer } from './baseline.ts';

const dir = mkdtempSync(join(tmpdir(), 'petstore-bare-'));
const dynamodb = await startEmbeddedDynamoDB(dir);
await ensureTables(dynamodb.endpoint);
process.env[petsTable.envVar] = petsTable.name;
const client = DynamoDBDocumentClient.from(new DynamoDBClient(localClientConfig(dynamodb.endpoint)));
const server = await startBaselineServer({
  client,
  stats: () => {
    const { user, system } = process.cpuUsage();
    return { dynamodbRequests: dynamodb.requests(), cpuMicros: user + system };
  },
});
process.send!({ baseUrl: server.baseUrl, dynamodbEndpoint: dynamodb.endpoint });
process.once('SIGTERM', async () => {
  await server.close();
  client.destroy();
  await dynamodb.close();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
});
