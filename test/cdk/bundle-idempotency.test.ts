// createPet's bundle loads its idempotency code on the first request with an Idempotency-Key, from
// a chunk beside index.mjs (shared/lambda/idempotency.ts; esbuild's code splitting,
// infra/constructs/bundled-function.ts): run away from node_modules as Lambda runs it
// (tools/harness/lambda-process.ts), against DynamoDB, a keyed create and its retry still make
// one animal, and a create without a key works before the chunk was ever loaded.
import type { APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startLambdaProcess } from '../../tools/harness/lambda-process.ts';
import { sampleEvent, sampleRequests } from '../../tools/harness/sample-requests.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { functionBundle } from './support/bundle.ts';
import { type SynthesizedApp, synthesized } from './support/synth.ts';

let app: SynthesizedApp;
let dynamodb: TestDynamoDB;
beforeAll(async () => {
  [app, dynamodb] = await Promise.all([synthesized(), startTestDynamoDB()]);
}, 300_000);
afterAll(() => dynamodb?.close());

test('a cold createPet answers a create without a key, then loads its idempotency chunk for a keyed one and replays it', async () => {
  // One process, as one Lambda environment: no key, then a key, then its retry.
  const host = await startLambdaProcess({
    ...{ bundle: functionBundle(app, 'production', 'createPet'), functionName: 'createPet' },
    dynamodbEndpoint: dynamodb.endpoint,
  });
  const create = async (headers: Record<string, string> = {}) => {
    const event = sampleEvent('createPet', sampleRequests.createPet.valid, { headers });
    const { statusCode, headers: answered, body } = (await host.invoke(event)).answer as APIGatewayProxyResult;
    return [statusCode, JSON.parse(body).id as number, answered?.['Idempotent-Replayed'] ?? null];
  };
  try {
    const plain = await create();
    const keyed = await create({ 'Idempotency-Key': 'bundle-1' });
    const retried = await create({ 'Idempotency-Key': 'bundle-1' });
    expect(plain).toEqual([201, expect.any(Number), null]);
    expect(keyed).toEqual([201, expect.any(Number), null]);
    expect(keyed[1]).not.toBe(plain[1]);
    // The retry made nothing: the first create's answer again, marked as a replay.
    expect(retried).toEqual([201, keyed[1], 'true']);
  } finally {
    await host.stop();
  }
});
