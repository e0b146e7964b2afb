// A bundle as `cdk synth` builds it for a stage that traces its functions still traces, run as
// Lambda runs it with active tracing and a sampled invocation: one document X-Ray accepts, the
// handler's subsegment under Lambda's function segment with its annotations, one subsegment per
// DynamoDB call inside, sent over UDP to the daemon address Lambda gives. No X-Ray SDK is
// bundled (shared/observability/xray.ts says why). And node:http, which bundled modules import as
// an ES module, comes from Node's own module without its facade (infra/constructs/lambda-node-http.ts):
// the bundle answers over plain http here, through it.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { LOCAL_AWS_ENV } from '../../infra/local/function-environment.ts';
import { petsTable, tables } from '../../shared/dynamodb/tables.ts';
import type { SubsegmentDocument } from '../../shared/observability/xray.ts';
import { traceHeader } from '../../tools/harness/trace-header.ts';
import { startXRayDaemon, type XRayDaemon } from '../../tools/harness/xray-daemon.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { segmentDocumentErrors } from '../support/xray.ts';
import { bundleSources } from './support/bundle.ts';
import { type SynthesizedApp, synthesized } from './support/synth.ts';
import { resource } from './support/template.ts';

let app: SynthesizedApp;
let dynamodb: TestDynamoDB;
let daemon: XRayDaemon;
beforeAll(async () => {
  [app, dynamodb, daemon] = await Promise.all([synthesized(), startTestDynamoDB(), startXRayDaemon()]);
}, 300_000);
afterAll(async () => {
  daemon?.close();
  await dynamodb?.close();
});

const stagingBundle = (name: 'getPet') => {
  const key = resource(app.template('staging'), app.index.staging.functions[name].function).Properties!.Code
    .S3Key as string;
  return join(app.dir, `asset.${key.replace(/\.zip$/, '')}`);
};

test('a staging bundle holds no X-Ray SDK: its own emitter, and nothing the SDK brought (cls-hooked, semver)', () => {
  const sources = bundleSources(stagingBundle('getPet'));
  expect(sources.some((s) => s.endsWith('shared/observability/xray.ts'))).toBe(true);
  expect(
    sources.filter((s) => /\/(aws-xray-sdk-core|cls-hooked|semver|@aws-lambda-powertools\/tracer)\//.test(s)),
  ).toEqual([]);
});

test('a staging bundle never imports node:http as an ES module, whose facade loads undici', () => {
  // index.mjs and its chunks (esbuild's code splitting).
  const dir = stagingBundle('getPet');
  const code = readdirSync(dir)
    .filter((file) => file.endsWith('.mjs'))
    .map((file) => readFileSync(join(dir, file), 'utf8'))
    .join('\n');
  expect(code).toContain('getBuiltinModule("node:http")');
  expect(code.match(/(?:from|import\()\s*["'](?:node:)?http["']/g) ?? []).toEqual([]);
});

test('a staging bundle, run as Lambda runs it with active tracing, sends the handler and DynamoDB subsegments', async () => {
  // Away from node_modules, as Lambda runs it: only what is in the bundle loads.
  const outside = mkdtempSync(join(tmpdir(), 'petstore-tracing-'));
  const script = `
    const { handler } = await import(process.argv[1] + '/index.mjs');
    const answer = await handler({ resource: '/v1/pets/{petId}', path: '/v1/pets/7', httpMethod: 'GET', headers: {}, multiValueHeaders: {},
      queryStringParameters: null, multiValueQueryStringParameters: null, pathParameters: { petId: '7' }, stageVariables: null, body: null,
      isBase64Encoded: false, requestContext: { requestId: 'req-traced', path: '/staging/v1/pets/7', stage: 'staging', authorizer: { principalId: 'key_Traced01' } } },
      { functionName: 'getPet', awsRequestId: 'aws-1', getRemainingTimeInMillis: () => 10000 });
    console.log(JSON.stringify(answer.statusCode));
  `;
  const { root, parent, header } = traceHeader(true);
  try {
    cpSync(stagingBundle('getPet'), join(outside, 'getPet'), { recursive: true });
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--input-type=module', '-e', script, join(outside, 'getPet')],
      {
        cwd: outside,
        encoding: 'utf8',
        env: {
          PATH: process.env.PATH,
          AWS_REGION: LOCAL_AWS_ENV.AWS_REGION,
          AWS_ENDPOINT_URL_DYNAMODB: dynamodb.endpoint,
          AWS_ACCESS_KEY_ID: 'AKIDTEST',
          AWS_SECRET_ACCESS_KEY: 'secret',
          POWERTOOLS_LOG_LEVEL: 'SILENT',
          POWERTOOLS_METRICS_DISABLED: 'true',
          POWERTOOLS_SERVICE_NAME: 'petstore',
          ...Object.fromEntries(tables.map((table) => [table.envVar, table.name])),
          // Tracing on, as the staging stack sets it, and what Lambda sets with active tracing.
          POWERTOOLS_TRACE_ENABLED: 'true',
          AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
          LAMBDA_TASK_ROOT: '/var/task',
          _HANDLER: 'index.handler',
          AWS_XRAY_DAEMON_ADDRESS: daemon.address,
          _X_AMZN_TRACE_ID: header,
        },
      },
    );
    expect(stdout.trim().split('\n').at(-1)).toBe('404'); // DynamoDB answered: no animal 7
    const documents = (await daemon.take()).map((d) => d.document as unknown as SubsegmentDocument);
    expect(documents).toHaveLength(1);
    const [handler] = documents as [SubsegmentDocument];
    expect(segmentDocumentErrors(handler)).toEqual([]);
    expect(handler).toMatchObject({ name: '## index.handler', trace_id: root, parent_id: parent, error: true });
    expect(handler.annotations).toMatchObject({ operation: 'getPet', keyId: 'key_Traced01', requestId: 'req-traced' });
    expect(handler.subsegments?.map((s) => [s.name, s.aws?.operation, s.aws?.table_name])).toEqual([
      ['DynamoDB', 'GetItem', petsTable.name],
    ]);
  } finally {
    rmSync(outside, { recursive: true, force: true });
  }
});
