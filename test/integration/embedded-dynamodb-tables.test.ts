// A table dynalite has just created is CREATING until a timer marks it ACTIVE, and a
// write to it before then is refused (ResourceNotFoundException). ensureTables and
// createTable return only once each table takes writes, however late that timer runs:
// a busy machine once ran a test's first write before it (CI, 2026-11-27). And a start
// killed inside that window leaves no table CREATING for good (dynalite-table-creation.ts).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DescribeTableCommand, DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import {
  createTable,
  createTableInput,
  ensureTables,
  startEmbeddedDynamoDB,
} from '../../infra/local/embedded-dynamodb.ts';
import { LOCAL_AWS_ENV, localClientConfig } from '../../infra/local/function-environment.ts';
import { countersTable, petsTable, tables } from '../../shared/dynamodb/tables.ts';
import { newDataDir } from '../../tools/harness/local-server.ts';
import { unstamped } from '../support/timestamps.ts';

/** How long this dynalite keeps a new table CREATING: far longer than a request takes. */
const CREATE_MS = 1_000;
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

const statusOf = async (TableName: string) =>
  (await client.send(new DescribeTableCommand({ TableName }))).Table?.TableStatus;

test('ensureTables returns once every table takes writes', async () => {
  await ensureTables(endpoint);
  for (const table of tables) expect(await statusOf(table.name)).toBe('ACTIVE'); // what dynalite's writes wait for
  await expect(putCounter(countersTable.name)).resolves.toBeDefined();
  // and a second call, with every table there already, returns at once
  const again = performance.now();
  await ensureTables(endpoint);
  expect(performance.now() - again).toBeLessThan(CREATE_MS);
});

test('createTable returns once the table takes writes', async () => {
  await createTable(client, createTableInput(countersTable, 'counters-created-late'));
  await expect(putCounter('counters-created-late')).resolves.toBeDefined();
});

test('a start killed while creating its tables leaves none unusable', async () => {
  // The window is between dynalite's answer (the table written CREATING) and its timer;
  // here the timer is a minute, so that the kill lands in it every time.
  const dataDir = newDataDir();
  const creator = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import dynalite from 'dynalite';
       import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
       await import(${JSON.stringify(pathToFileURL(resolve('infra/local/dynalite-durable-writes.ts')).href)});
       const { createTableInput } = await import(${JSON.stringify(pathToFileURL(resolve('infra/local/embedded-dynamodb.ts')).href)});
       const { localClientConfig } = await import(${JSON.stringify(pathToFileURL(resolve('infra/local/function-environment.ts')).href)});
       const { tables } = await import(${JSON.stringify(pathToFileURL(resolve('shared/dynamodb/tables.ts')).href)});
       const server = dynalite({ path: ${JSON.stringify(join(dataDir, 'dynamodb'))}, createTableMs: 60_000 });
       await new Promise((done) => server.listen(0, '127.0.0.1', done));
       const client = new DynamoDBClient(localClientConfig('http://127.0.0.1:' + server.address().port));
       for (const table of tables) await client.send(new CreateTableCommand(createTableInput(table)));
       console.log('created');`,
    ],
    { env: { ...process.env, ...LOCAL_AWS_ENV }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const [line] = await once(creator.stdout, 'data');
  expect(String(line)).toContain('created');
  creator.kill('SIGKILL');
  await once(creator, 'exit');

  // The repair says so on stderr, one line per table: captured here, not left in the test output.
  const warned = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  const restarted = await startEmbeddedDynamoDB(dataDir);
  const after = new DynamoDBClient({ ...localClientConfig(restarted.endpoint), maxAttempts: 1 });
  try {
    await ensureTables(restarted.endpoint);
    expect(warned.mock.calls.map(([line]) => unstamped(line)).sort()).toEqual(
      tables
        .map(
          (table) =>
            `warning: table ${table.name} was left CREATING by a start that was killed; its creation is finished now`,
        )
        .sort(),
    );
    const { Table } = await after.send(new DescribeTableCommand({ TableName: petsTable.name }));
    expect(Table?.TableStatus).toBe('ACTIVE');
    expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexStatus)).toEqual(['ACTIVE']);
    await expect(
      after.send(
        new PutItemCommand({ TableName: countersTable.name, Item: { counter: { S: 'petId' }, value: { N: '1' } } }),
      ),
    ).resolves.toBeDefined();
  } finally {
    warned.mockRestore();
    after.destroy();
    await restarted.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 20_000);
