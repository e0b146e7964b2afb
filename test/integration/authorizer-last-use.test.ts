// The authorizer's last-use record, counted on the wire (a proxy in front of dynalite): one
// conditional UpdateItem for a key's first check, none while the record is fresh, and a
// failing write never refuses the key (it is logged).
import { afterAll, beforeAll, beforeEach, expect, test, vi } from 'vitest';
import { savedQueries } from '../../infra/monitoring/queries.ts';
import type { KeysRepository } from '../../shared/domain/stores.ts';
import { createKeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { keysTable } from '../../shared/dynamodb/tables.ts';
import { type DynamoDBProxy, startDynamoDBProxy } from '../../tools/harness/dynamodb-proxy.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { type Functions, loadFunctions, setFunctionEnv, tokenEvent } from '../support/in-process.ts';
import { type LogEvent, runQuery } from '../support/logs-insights.ts';

let db: TestDynamoDB;
let proxy: DynamoDBProxy;
let functions: Functions;
let keys: KeysRepository;

beforeAll(async () => {
  db = await startTestDynamoDB();
  proxy = await startDynamoDBProxy(db.endpoint);
  setFunctionEnv(proxy.endpoint);
  functions = await loadFunctions();
  keys = createKeysRepository(db.client, keysTable.name);
});
afterAll(async () => {
  await proxy?.close();
  await db?.close();
});
beforeEach(() => {
  proxy.reset();
  proxy.failWhen = undefined;
});

const operations = () => proxy.requests.map((request) => request.operation);

test("a key's first check records its use with one UpdateItem; checks while the record is fresh write nothing", async () => {
  const { key } = await keys.create('counted');
  await functions.authorize(tokenEvent(`Bearer ${key}`));
  expect(operations()).toEqual(['GetItem', 'UpdateItem']);
  proxy.reset();
  for (let i = 0; i < 3; i++) await functions.authorize(tokenEvent(`Bearer ${key}`));
  expect(operations()).toEqual(['GetItem', 'GetItem', 'GetItem']);
});

test('a last-use write that fails lets the key in all the same, and says so in the log', async () => {
  const { key, keyId } = await keys.create('unrecorded');
  proxy.failWhen = (request) => request.operation === 'UpdateItem';
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  try {
    expect((await functions.authorize(tokenEvent(`Bearer ${key}`))).principalId).toBe(keyId);
    const logged = warn.mock.calls.map(([line]) => JSON.parse(String(line)) as Record<string, unknown>);
    expect(logged).toEqual([
      {
        level: 'WARN',
        message: 'last use not recorded',
        // Every line on-call reads says when (the local stage's output has no @timestamp to lean on).
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/),
        keyId,
        error: 'InternalServerError',
      },
    ]);
    expect(JSON.stringify(logged)).not.toContain(key);
    // On-call finds it with the saved query `errors`, in the authorizer's log group.
    const errors = savedQueries.find((query) => query.name === 'errors')!;
    const filed = logged.map((l): LogEvent => ({ ...l, '@timestamp': Date.now(), '@log': 'authorizer' }));
    expect(runQuery(errors.queryString, filed)).toMatchObject([
      { level: 'WARN', message: 'last use not recorded', keyId },
    ]);
  } finally {
    warn.mockRestore();
  }
  expect((await keys.lookup(key))?.lastUsedAt).toBeUndefined();
});
