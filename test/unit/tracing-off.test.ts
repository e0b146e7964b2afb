// With the stage's tracing switch off (POWERTOOLS_TRACE_ENABLED, infra/stages.ts), no invocation is
// ever traced: the DynamoDB client gets no step of ours, and an invocation's end waits on nothing.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterEach, expect, test, vi } from 'vitest';

const STEP = 'petstoreXRaySubsegment';
const xrayWith = async (enabled: string | undefined) => {
  vi.stubEnv('POWERTOOLS_TRACE_ENABLED', enabled);
  vi.resetModules();
  return import('../../shared/observability/xray.ts');
};
const steps = (client: DynamoDBClient) => client.middlewareStack.identify().map((entry) => entry.split(' ')[0]);
afterEach(() => vi.unstubAllEnvs());

test.each([undefined, 'false'])('tracing %s: the client is left as made', async (enabled) => {
  const { traceDynamoDBCalls } = await xrayWith(enabled);
  const client = traceDynamoDBCalls(new DynamoDBClient({ region: 'eu-west-1' }));
  expect(steps(client)).not.toContain(STEP);
});

test('tracing on: each call goes through the subsegment step', async () => {
  const { traceDynamoDBCalls } = await xrayWith('true');
  const client = traceDynamoDBCalls(new DynamoDBClient({ region: 'eu-west-1' }));
  expect(steps(client)).toContain(STEP);
});

test('an untraced invocation ends without a promise to wait on; a sampled one sends its trace', async () => {
  vi.stubEnv('_X_AMZN_TRACE_ID', 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=0');
  const xray = await xrayWith('true');
  const middleware = xray.traceInvocation(() => ({ status: 200 }));
  const request = { internal: {} } as Parameters<NonNullable<typeof middleware.before>>[0];
  await middleware.before!(request);
  expect(middleware.after!(request)).toBeUndefined();
  vi.stubEnv('_X_AMZN_TRACE_ID', 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1');
  vi.stubEnv('AWS_XRAY_DAEMON_ADDRESS', '127.0.0.1:9'); // discard: the datagram's fate is not this test's
  await middleware.before!(request);
  expect(middleware.after!(request)).toBeInstanceOf(Promise);
});
