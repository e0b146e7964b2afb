// With the stage's tracing switch off (POWERTOOLS_TRACE_ENABLED, infra/stages.ts), no invocation is
// ever traced: the DynamoDB client gets no step of ours.
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
