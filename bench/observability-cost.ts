// `npm run bench:observability`: what a getPet invocation's telemetry costs, warm, written as the
// functions write it (one summary line carrying its metrics as EMF: shared/observability) beside
// the same written with Powertools as its documentation shows (injectLambdaContext's addContext,
// logger.info of the summary, Metrics with one single-metric line per dimension set), in the same
// process, in alternating blocks: CPU per invocation and bytes written to stdout, which
// CloudWatch Logs bills. Then what tracing adds to an invocation making one GetItem (the SDK's
// own work included, the network left out), sampled and unsampled, against tracing never begun.
// The decisions it feeds: docs/performance.md, "Functions alone".
// The lines go to /dev/null, each its own write as on Lambda; the report goes to stderr.
import { createSocket } from 'node:dgram';
import { openSync, writeSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { Context } from 'aws-lambda';
import { median, round } from './support/stats.ts';

const daemon = createSocket('udp4').on('message', () => {});
await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
Object.assign(process.env, {
  POWERTOOLS_TRACE_ENABLED: 'true',
  AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${(daemon.address() as AddressInfo).port}`,
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  POWERTOOLS_SERVICE_NAME: 'petstore',
  POWERTOOLS_METRICS_NAMESPACE: 'PetStore/production',
  POWERTOOLS_LOG_LEVEL: 'INFO',
  AWS_LAMBDA_FUNCTION_NAME: 'petstore-production-getPet',
  _X_AMZN_TRACE_ID: 'Root=1-6743a2b1-0123456789abcdef01234567;Parent=53995c3f42cd8ad8;Sampled=0',
});
const { logRequestSummary, metric, startInvocation, elapsedMs } = await import('../shared/observability/telemetry.ts');
const xray = await import('../shared/observability/xray.ts');

const context = {
  functionName: 'petstore-production-getPet',
  functionVersion: '7',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:petstore-production-getPet:live',
  memoryLimitInMB: '1024',
  awsRequestId: '8f5a2c1e-3b4d-4e6f-9a0b-1c2d3e4f5a6b',
  logGroupName: '/aws/lambda/petstore-production-getPet',
  logStreamName: '2026/11/24/[7]0123456789abcdef',
  callbackWaitsForEmptyEventLoop: true,
  getRemainingTimeInMillis: () => 10_000,
} as unknown as Context;
const summary = (latencyMs: number) => ({
  operation: 'getPet' as const,
  status: 200,
  latencyMs,
  keyId: 'key_0123456789ab',
  requestId: 'c6af9ac6-7b61-11e6-9a41-93e812345678',
});

const ours = () => {
  const invocation = startInvocation(context);
  logRequestSummary(invocation, summary(elapsedMs(invocation)), [
    metric('requests', { operation: 'getPet', statusClass: '2xx' }),
    metric('latency', { operation: 'getPet' }, elapsedMs(invocation)),
  ]);
};

const logger = new Logger();
const metrics = new Metrics();
const powertools = () => {
  const started = performance.now();
  logger.addContext(context);
  const requests = metrics.singleMetric();
  requests.addDimensions({ operation: 'getPet', statusClass: '2xx' });
  requests.addMetric('Requests', MetricUnit.Count, 1);
  const latency = metrics.singleMetric();
  latency.addDimension('operation', 'getPet');
  latency.addMetric('Latency', MetricUnit.Milliseconds, performance.now() - started);
  logger.info('request', summary(performance.now() - started));
};

let bytes = 0;
const devNull = openSync('/dev/null', 'w');
process.stdout.write = ((chunk: string) => {
  bytes += Buffer.byteLength(chunk);
  writeSync(devNull, chunk);
  return true;
}) as typeof process.stdout.write;

const BLOCK = 2_000;
const ROUNDS = Number(process.env.OBSERVABILITY_ROUNDS ?? 15);

/** `sides` in alternating blocks of BLOCK calls: median CPU µs per call over ROUNDS, and bytes written per call. */
const compare = async (sides: Record<string, () => unknown>) => {
  const figures = Object.fromEntries(Object.keys(sides).map((name) => [name, { cpu: [] as number[], bytes: 0 }]));
  for (const side of Object.values(sides)) for (let i = 0; i < BLOCK; i++) await side(); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    const names = Object.keys(sides);
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + round) % names.length]!;
      bytes = 0;
      const cpu = process.cpuUsage();
      for (let i = 0; i < BLOCK; i++) await sides[name]!();
      const { user, system } = process.cpuUsage(cpu);
      figures[name]!.cpu.push((user + system) / BLOCK);
      figures[name]!.bytes = bytes / BLOCK;
    }
  }
  for (const [name, { cpu, bytes: perCall }] of Object.entries(figures)) {
    process.stderr.write(
      `${name}: ${round(median(cpu), 1)} µs CPU per invocation (rounds ${round(Math.min(...cpu), 1)}–${round(Math.max(...cpu), 1)}), ${round(perCall, 0)} bytes written\n`,
    );
  }
};

await compare({ 'summary line (ours)': ours, 'Powertools Logger + Metrics': powertools });

// One GetItem answered at once, after our build-step middleware: the SDK's work without the network.
const client = xray.traceDynamoDBCalls(new DynamoDBClient({}));
client.middlewareStack.add(
  () => async () => ({
    output: { $metadata: { httpStatusCode: 200, requestId: 'R', attempts: 1 } } as never,
    response: {},
  }),
  { step: 'finalizeRequest', name: 'answerAtOnce' },
);
const getItem = () => client.send(new GetItemCommand({ TableName: 'pets', Key: { id: { N: '7' } } }));
const traced = (sampled: boolean) => async () => {
  process.env._X_AMZN_TRACE_ID = `Root=1-6743a2b1-0123456789abcdef01234567;Parent=53995c3f42cd8ad8;Sampled=${sampled ? 1 : 0}`;
  xray.beginTrace();
  xray.annotate({ operation: 'getPet', keyId: 'key_0123456789ab', requestId: 'c6af9ac6-7b61-11e6-9a41-93e812345678' });
  await getItem();
  await xray.endTrace({ status: 200 });
};
await compare({
  'GetItem, no trace begun': getItem,
  'GetItem, unsampled': traced(false),
  'GetItem, sampled': traced(true),
});
daemon.close();
