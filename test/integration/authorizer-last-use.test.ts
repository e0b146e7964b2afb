// The authorizer's last-use record, counted on the wire (a proxy in front of dynalite): one
// conditional UpdateItem for a key's first check, none while the record is fresh, and a
// failing write never refuses the key: it is one WARN line naming the key id, which CloudWatch
// counts as KeyUseRecordFailures (EMF, as AWS specifies it:
// https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html),
// the metric the stage alarms on (infra/monitoring/alarms.ts, docs/runbook.md).
import { afterAll, beforeAll, beforeEach, expect, test, vi } from 'vitest';
import { savedQueries } from '../../infra/monitoring/queries.ts';
import type { KeysRepository } from '../../shared/domain/stores.ts';
import { createKeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { keysTable } from '../../shared/dynamodb/tables.ts';
import { AUTHORIZER_SUMMARY_MESSAGE } from '../../shared/observability/log-fields.ts';
import { powertoolsEnvironment } from '../../shared/observability/metric-names.ts';
import { type DynamoDBProxy, startDynamoDBProxy } from '../../tools/harness/dynamodb-proxy.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { type Functions, loadFunctions, setFunctionEnv, TEST_STAGE, tokenEvent } from '../support/in-process.ts';
import { type LogEvent, runQuery } from '../support/logs-insights.ts';
import { captureFunctionOutput, type LogLine } from '../support/observability.ts';

let db: TestDynamoDB;
let proxy: DynamoDBProxy;
let functions: Functions;
let keys: KeysRepository;
let output: ReturnType<typeof captureFunctionOutput>;

beforeAll(async () => {
  db = await startTestDynamoDB();
  proxy = await startDynamoDBProxy(db.endpoint);
  setFunctionEnv(proxy.endpoint);
  // As the stack sets them (INFO), with EMF on so that the metric can be read back.
  Object.assign(process.env, powertoolsEnvironment(TEST_STAGE, 'INFO'), { POWERTOOLS_METRICS_DISABLED: 'false' });
  functions = await loadFunctions();
  keys = createKeysRepository(db.client, keysTable.name);
  output = captureFunctionOutput();
});
afterAll(async () => {
  vi.restoreAllMocks();
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

test('a last-use write that fails lets the key in all the same, and its WARN line counts KeyUseRecordFailures', async () => {
  const { key, keyId } = await keys.create('unrecorded');
  proxy.failWhen = (request) => request.operation === 'UpdateItem';
  output.clear();
  expect((await functions.authorize(tokenEvent(`Bearer ${key}`))).principalId).toBe(keyId);
  proxy.failWhen = undefined;
  const lines = output.lines();
  const warnings = lines.filter((line) => line.message === 'last use not recorded');
  expect(warnings).toHaveLength(1);
  const [line] = warnings as [LogLine & { _aws?: { Timestamp: number; CloudWatchMetrics: unknown[] } }];
  // Every line on-call reads says when (the local stage's output has no @timestamp to lean on), which
  // key, and which invocation and version: the same as the invocation's summary line.
  const summary = lines.find((l) => l.message === AUTHORIZER_SUMMARY_MESSAGE);
  expect(summary, JSON.stringify(lines)).toBeDefined();
  expect(line).toMatchObject({
    level: 'WARN',
    keyId,
    timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/),
    function_request_id: summary!.function_request_id,
    executedVersion: summary!.executedVersion,
    commit: summary!.commit,
  });
  expect(line.executedVersion).toEqual(expect.any(String));
  expect((line.error as { name?: string }).name).toBe('InternalServerError'); // what DynamoDB answered
  expect(line._aws!.CloudWatchMetrics).toEqual([
    {
      Namespace: `PetStore/${TEST_STAGE}`,
      Dimensions: [['service']],
      Metrics: [{ Name: 'KeyUseRecordFailures', Unit: 'Count' }],
    },
  ]);
  expect(Math.abs(line._aws!.Timestamp - Date.now())).toBeLessThan(60_000);
  expect(line).toMatchObject({ service: 'petstore', KeyUseRecordFailures: 1 });
  expect(output.text()).not.toContain(key);
  // The runbook's KeyUseRecordFailures sends on-call to the saved query `errors`, in the authorizer's log group.
  const errors = savedQueries.find((query) => query.name === 'errors')!;
  const filed = lines.map((l): LogEvent => ({ ...l, '@timestamp': Date.now(), '@log': 'authorizer' }));
  expect(runQuery(errors.queryString, filed)).toMatchObject([
    { level: 'WARN', message: 'last use not recorded', keyId, 'error.name': 'InternalServerError' },
  ]);
  expect((await keys.lookup(key))?.lastUsedAt).toBeUndefined();
});

test('a key whose last use is recorded writes no such line and no such metric', async () => {
  const { key } = await keys.create('recorded');
  output.clear();
  await functions.authorize(tokenEvent(`Bearer ${key}`));
  expect(output.text()).not.toContain('KeyUseRecordFailures');
  expect(output.lines().filter((line) => line.message === 'last use not recorded')).toEqual([]);
});

// The container's Logger outlives an invocation (deployed, on-demand, Powertools keeps one context
// for the process): a fault's line must not leave its invocation's ids on the next WARN line.
test("a WARN line after another invocation's fault names no request of that invocation", async () => {
  const { key } = await keys.create('after a fault');
  proxy.failWhen = (request) => request.operation === 'GetItem';
  output.clear();
  await expect(functions.authorize(tokenEvent(`Bearer ${key}`))).rejects.toThrow();
  const fault = output.lines().find((line) => line.level === 'ERROR');
  expect(fault?.function_request_id, JSON.stringify(output.lines())).toEqual(expect.any(String));
  proxy.failWhen = (request) => request.operation === 'UpdateItem';
  output.clear();
  await functions.authorize(tokenEvent(`Bearer ${key}`));
  proxy.failWhen = undefined;
  const warning = output.lines().find((line) => line.message === 'last use not recorded');
  expect(warning).toBeDefined();
  expect(warning!.function_request_id).not.toBe(fault!.function_request_id);
  const summary = output.lines().find((line) => line.message === AUTHORIZER_SUMMARY_MESSAGE);
  expect(warning!.function_request_id).toBe(summary?.function_request_id);
});
