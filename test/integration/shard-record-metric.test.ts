// A listing's best-effort re-read of the status index's shard record that fails (shared/dynamodb/
// shard-count.ts) leaves the listing answering 200 with the shards it knew, and was once only a
// WARN line that on-call had to go looking for. Now the line is an EMF document as well: CloudWatch
// counts it as ShardRecordReadFailures, which the stage alarms on (infra/monitoring/alarms.ts,
// docs/runbook.md). The real listPets function in this process, over dynalite behind the counting
// proxy, which answers the record's GetItem with DynamoDB's own 500 (dynalite never fails one).
// The EMF rules the line is held to, from AWS's "Specification: Embedded metric format"
// (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html):
// a root `_aws` object with a millisecond `Timestamp` and `CloudWatchMetrics` directives, each
// directive's `Dimensions` and `Metrics` names resolved by members of the root node.
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { savedQueries } from '../../infra/monitoring/queries.ts';
import { countersTable } from '../../shared/dynamodb/tables.ts';
import { powertoolsEnvironment } from '../../shared/observability/metric-names.ts';
import { type DynamoDBProxy, startDynamoDBProxy } from '../../tools/harness/dynamodb-proxy.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { type Functions, loadFunctions, proxyEvent, setFunctionEnv, TEST_STAGE } from '../support/in-process.ts';
import { type LogEvent, runQuery } from '../support/logs-insights.ts';
import { captureFunctionOutput, type LogLine } from '../support/observability.ts';

/** What the stage's alarm reads (written out: the alarm's test holds the template to the same). */
const NAMESPACE = `PetStore/${TEST_STAGE}`;
const METRIC = 'ShardRecordReadFailures';
const WARNING = 'status-index shard record not re-read; listed the shards known';
/** shard-count.ts: a record read is re-read after 500 ms, and trusted for 1 s. */
const DUE_MS = 510;

let db: TestDynamoDB;
let proxy: DynamoDBProxy;
let functions: Functions;
let output: ReturnType<typeof captureFunctionOutput>;
beforeAll(async () => {
  db = await startTestDynamoDB();
  proxy = await startDynamoDBProxy(db.endpoint);
  setFunctionEnv(proxy.endpoint);
  // As the stack sets them (INFO), with EMF on so that the metrics can be read back.
  Object.assign(process.env, powertoolsEnvironment(TEST_STAGE, 'INFO'), { POWERTOOLS_METRICS_DISABLED: 'false' });
  functions = await loadFunctions();
  output = captureFunctionOutput();
});
afterAll(async () => {
  vi.restoreAllMocks();
  await proxy?.close();
  await db?.close();
});

const list = (requestId: string) =>
  functions.invoke(proxyEvent({ path: '/v1/pets?status=available&limit=5', requestId }));

const recordReads = () => proxy.requests.filter((r) => r.operation === 'GetItem' && r.table === countersTable.name);

test('a failed re-read of the shard record: the listing answers 200, and its WARN line counts ShardRecordReadFailures', async () => {
  expect((await list('req-warm')).statusCode).toBe(200); // the container reads the record
  // A listing half a second after the last read re-reads it, best effort while that read is under a
  // second old: retried until the last listing took long enough to leave less than half a second.
  let failed: Awaited<ReturnType<typeof list>> | undefined;
  for (let attempt = 0; attempt < 5 && failed === undefined; attempt++) {
    proxy.failWhen = undefined;
    await new Promise((resolve) => setTimeout(resolve, 1100)); // past the trust: the next listing must read
    const startedRead = Date.now();
    expect((await list(`req-read-${attempt}`)).statusCode).toBe(200);
    const readTook = Date.now() - startedRead;
    if (readTook > 1000 - DUE_MS - 200) continue; // a loaded machine: too close to the second for a best-effort read
    await new Promise((resolve) => setTimeout(resolve, DUE_MS - (Date.now() - startedRead - readTook)));
    output.clear();
    proxy.reset();
    proxy.failWhen = (r) => r.operation === 'GetItem' && r.table === countersTable.name;
    failed = await list('req-degraded');
  }
  proxy.failWhen = undefined;
  expect(failed?.statusCode, 'no best-effort re-read within five tries').toBe(200);
  expect(recordReads().length).toBeGreaterThanOrEqual(1); // the re-read was made, and failed (with its retries)

  const lines = output.lines();
  const warnings = lines.filter((line) => line.message === WARNING);
  expect(warnings).toHaveLength(1); // one per failed re-read, not one per attempt
  const [line] = warnings as [LogLine & { _aws?: { Timestamp: number; CloudWatchMetrics: unknown[] } }];
  expect(line.level).toBe('WARN');
  expect((line.error as { name?: string }).name).toBeTruthy(); // the failure itself, with Powertools' formatting
  // The metric, on the same line: one directive, dimension `service` (which the line's own `service` holds).
  expect(line._aws, JSON.stringify(line)).toBeDefined();
  expect(line._aws!.CloudWatchMetrics).toEqual([
    { Namespace: NAMESPACE, Dimensions: [['service']], Metrics: [{ Name: METRIC, Unit: 'Count' }] },
  ]);
  expect(Math.abs(line._aws!.Timestamp - Date.now())).toBeLessThan(60_000);
  expect(line).toMatchObject({ service: 'petstore', [METRIC]: 1 });
  // Which version and commit failed, as the same listing's summary line names the code that answered.
  const summary = lines.find((l) => l.message === 'request' && l.requestId === 'req-degraded');
  expect(summary, "the listing's summary line").toBeDefined();
  expect(line.executedVersion).toBe(summary!.executedVersion);
  expect(line.commit).toBe(summary!.commit);
  // No other line of the listing declares it: the summary line's metrics are the request's own.
  const declaring = lines.filter((l) => JSON.stringify(l._aws ?? {}).includes(METRIC));
  expect(declaring).toEqual([line]);
  // The runbook's ShardRecordReadFailures sends on-call to the saved query `errors`: it finds the
  // line, with what failed, among the listing's lines as CloudWatch files them in listPets' group.
  const errors = savedQueries.find((query) => query.name === 'errors')!;
  const filed = lines.map((l): LogEvent => ({ ...l, '@timestamp': Date.now(), '@log': 'listPets' }));
  const found = runQuery(errors.queryString, filed).filter((row) => row.message === WARNING);
  expect(found).toHaveLength(1);
  expect(found[0]).toMatchObject({ level: 'WARN', 'error.name': line.error && (line.error as { name: string }).name });
}, 60_000);

test('a listing whose re-read succeeds writes no such line', async () => {
  output.clear();
  expect((await list('req-quiet')).statusCode).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  expect((await list('req-quiet-2')).statusCode).toBe(200);
  expect(output.text()).not.toContain(METRIC);
  expect(output.lines().filter((line) => line.message === WARNING)).toEqual([]);
}, 30_000);
