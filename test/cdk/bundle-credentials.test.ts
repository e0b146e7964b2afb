// The Lambda bundles carry the SDK with its credential chain reduced to the
// environment (infra/constructs/lambda-credentials.ts, via an esbuild alias): the
// one source Lambda uses (what it saves: docs/performance.md). A bundle must still sign its
// DynamoDB calls with the credentials Lambda puts in the environment.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { LOCAL_AWS_ENV } from '../../infra/local/function-environment.ts';
import { tables } from '../../shared/dynamodb/tables.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { bundleSources, functionBundle } from './support/bundle.ts';
import { type SynthesizedApp, synthesized } from './support/synth.ts';

let app: SynthesizedApp;
let dynamodb: TestDynamoDB;
beforeAll(async () => {
  [app, dynamodb] = await Promise.all([synthesized(), startTestDynamoDB()]);
}, 300_000);
afterAll(() => dynamodb?.close());

const getPetBundle = () => functionBundle(app, 'staging', 'getPet');

test('the bundle holds the environment credential provider and none of the rest of the chain', () => {
  const sources = bundleSources(getPetBundle());
  expect(sources.some((s) => s.includes('/credential-provider-env/'))).toBe(true);
  for (const provider of [
    'credential-provider-node',
    'credential-provider-sso',
    'credential-provider-ini',
    'credential-provider-imds',
    'nested-clients',
  ]) {
    expect(sources.filter((s) => s.includes(`/${provider}/`))).toEqual([]);
  }
});

test('a bundle signs its DynamoDB call with the credentials in the environment, and fails without them', async () => {
  // Run away from node_modules, as Lambda runs it: only what is in the bundle loads.
  const outside = mkdtempSync(join(tmpdir(), 'petstore-credentials-'));
  const script = `
    const { handler } = await import(process.argv[1] + '/index.mjs');
    const answer = await handler({ resource: '/v1/pets/{petId}', path: '/v1/pets/7', httpMethod: 'GET', headers: {}, multiValueHeaders: {},
      queryStringParameters: null, multiValueQueryStringParameters: null, pathParameters: { petId: '7' }, stageVariables: null, body: null,
      isBase64Encoded: false, requestContext: { requestId: 'req-1', path: '/staging/v1/pets/7', stage: 'staging', authorizer: { principalId: 'key_test' } } },
      { functionName: 'getPet', awsRequestId: 'aws-1', getRemainingTimeInMillis: () => 10000 });
    console.log(JSON.stringify([answer.statusCode, JSON.parse(answer.body).code]));
  `;
  // Asynchronously: dynalite answers from this very process.
  const run = async (credentials: Record<string, string>) =>
    JSON.parse(
      (
        await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script, join(outside, 'getPet')], {
          cwd: outside,
          encoding: 'utf8',
          env: {
            PATH: process.env.PATH,
            AWS_REGION: LOCAL_AWS_ENV.AWS_REGION,
            AWS_ENDPOINT_URL_DYNAMODB: dynamodb.endpoint,
            POWERTOOLS_LOG_LEVEL: 'SILENT',
            POWERTOOLS_METRICS_DISABLED: 'true',
            ...Object.fromEntries(tables.map((table) => [table.envVar, table.name])),
            ...credentials,
          },
        })
      ).stdout
        .trim()
        .split('\n')
        .at(-1)!,
    );
  try {
    cpSync(getPetBundle(), join(outside, 'getPet'), { recursive: true });
    // The call reached DynamoDB, signed: no animal 7 there.
    expect(
      await run({ AWS_ACCESS_KEY_ID: 'AKIDTEST', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'token' }),
    ).toEqual([404, 'NOT_FOUND']);
    // No credentials in the environment: nothing else is asked (no profile, no instance metadata).
    expect(await run({})).toEqual([500, 'INTERNAL_ERROR']);
  } finally {
    rmSync(outside, { recursive: true, force: true });
  }
});
