// A bundle as `cdk synth` builds it for a stage with the Tracer on still traces: the
// handler's subsegment with its annotations, and one subsegment per DynamoDB call, sent
// over UDP to the daemon address Lambda gives. The bundles carry a stand-in for `semver`
// (infra/constructs/lambda-semver.ts, an esbuild alias), which only the X-Ray SDK's v2
// patcher requires; this checks that nothing else in a bundle needs the real one. And
// node:http, which bundled modules import as an ES module, comes from Node's own module
// (infra/constructs/lambda-node-http.ts): the bundle answers over plain http here, through it.
import { execFile } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { LOCAL_AWS_ENV } from '../../infra/local/function-environment.ts';
import { petsTable, tables } from '../../shared/dynamodb/tables.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { REPOSITORY_ROOT, type SynthesizedApp, synthesized } from './support/synth.ts';
import { resource } from './support/template.ts';

type Segment = {
  name: string;
  annotations?: Record<string, unknown>;
  aws?: { operation?: string; table_name?: string };
  subsegments?: Segment[];
};

let app: SynthesizedApp;
let dynamodb: TestDynamoDB;
let daemon: Socket;
const received: string[] = [];
beforeAll(async () => {
  [app, dynamodb] = await Promise.all([synthesized(), startTestDynamoDB()]);
  daemon = createSocket('udp4');
  daemon.on('message', (message) => received.push(message.toString('utf8')));
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
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

test('a staging bundle bundles the semver stand-in, and only the X-Ray SDK v2 patcher imports semver', () => {
  const bundle = stagingBundle('getPet');
  const { sources } = JSON.parse(readFileSync(join(bundle, 'index.mjs.map'), 'utf8')) as { sources: string[] };
  expect(sources.some((s) => s.endsWith('infra/constructs/lambda-semver.ts'))).toBe(true);
  expect(sources.filter((s) => s.includes('/semver/'))).toEqual([]);
  // The map's sources are relative to the bundle's directory.
  const importers = sources
    .map((source) => resolve(bundle, source))
    .filter((file) => file.includes('/node_modules/'))
    .filter((file) => /require\(\s*["']semver["']\s*\)|from\s*["']semver["']/.test(readFileSync(file, 'utf8')))
    .map((file) => relative(REPOSITORY_ROOT, file));
  expect(importers).toEqual(['node_modules/aws-xray-sdk-core/dist/lib/patchers/aws_p.js']);
});

test('a staging bundle never imports node:http as an ES module, whose facade loads undici', () => {
  const code = readFileSync(join(stagingBundle('getPet'), 'index.mjs'), 'utf8');
  expect(code).toContain('getBuiltinModule("node:http")');
  expect(code.match(/(?:from|import\()\s*["'](?:node:)?http["']/g) ?? []).toEqual([]);
});

test('a staging bundle never imports node:process as an ES module, whose facade opens stdin, stdout and stderr', () => {
  const code = readFileSync(join(stagingBundle('getPet'), 'index.mjs'), 'utf8');
  expect(code.match(/(?:from|import\()\s*["'](?:node:)?process["']/g) ?? []).toEqual([]);
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
  const traceId = `1-${Math.floor(Date.now() / 1000).toString(16)}-${crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`;
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
          // The Tracer on, as the staging stack sets it, and what Lambda sets with active tracing.
          POWERTOOLS_TRACE_ENABLED: 'true',
          AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
          LAMBDA_TASK_ROOT: '/var/task',
          _HANDLER: 'index.handler',
          AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${(daemon.address() as AddressInfo).port}`,
          AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
          _X_AMZN_TRACE_ID: `Root=${traceId};Parent=53995c3f42cd8ad8;Sampled=1`,
        },
      },
    );
    expect(stdout.trim().split('\n').at(-1)).toBe('404'); // DynamoDB answered: no animal 7
    await sleep(200);
    const flatten = (segment: Segment): Segment[] => [segment, ...(segment.subsegments ?? []).flatMap(flatten)];
    const segments = received
      .map((datagram) => JSON.parse(datagram.slice(datagram.indexOf('\n') + 1)) as Segment & { trace_id?: string })
      .filter((s) => s.trace_id === traceId)
      .flatMap(flatten);
    expect(segments.find((s) => s.name === '## index.handler')?.annotations).toMatchObject({
      operation: 'getPet',
      keyId: 'key_Traced01',
      requestId: 'req-traced',
    });
    expect(segments.filter((s) => s.name === 'DynamoDB').map((s) => s.aws)).toEqual([
      expect.objectContaining({ operation: 'GetItem', table_name: petsTable.name }),
    ]);
  } finally {
    rmSync(outside, { recursive: true, force: true });
  }
});
