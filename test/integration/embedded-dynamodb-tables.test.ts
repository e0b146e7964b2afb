// A table dynalite has just created is CREATING until a timer marks it ACTIVE, and a
// write to it before then is refused (ResourceNotFoundException). ensureTables and
// createTable return only once each table takes writes, however late that timer runs:
// a busy machine once ran a test's first write before it (CI, 2026-11-27).
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTable, createTableInput, ensureTables } from '../../infra/local/embedded-dynamodb.ts';
import { LOCAL_AWS_ENV, localClientConfig } from '../../infra/local/function-environment.ts';
import { countersTable, tables } from '../../shared/dynamodb/tables.ts';

/** How long this dynalite keeps a new table CREATING: far longer than a request takes. */
const CREATE_MS = 300;
const server = dynalite({ createTableMs: CREATE_MS });
let endpoint: string;
let client: DynamoDBClient;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  Object.assign(process.env, LOCAL_AWS_ENV);
  client = new DynamoDBClient({ ...localClientConfig(endpoint), maxAttempts: 1 });
});
afterAll(async () => {
  client.destroy();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
});

const putCounter = (TableName: string) =>
  client.send(new PutItemCommand({ TableName, Item: { counter: { S: 'petId' }, value: { N: '1' } } }));

test('ensureTables returns once every table takes writes', async () => {
  await ensureTables(endpoint);
  await expect(putCounter(countersTable.name)).resolves.toBeDefined();
  // and a second call, with every table there already, returns at once
  const again = performance.now();
  await ensureTables(endpoint);
  expect(performance.now() - again).toBeLessThan(CREATE_MS);
  expect(tables.length).toBeGreaterThan(1);
});

test('createTable returns once the table takes writes', async () => {
  await createTable(client, createTableInput(countersTable, 'counters-created-late'));
  await expect(putCounter('counters-created-late')).resolves.toBeDefined();
});
