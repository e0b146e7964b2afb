// A bundle as `cdk synth` builds it for a stage that traces its functions still traces, run as
// Lambda runs it with active tracing and a sampled invocation: one document X-Ray accepts, the
// handler's subsegment under Lambda's function segment with its annotations, one subsegment per
// DynamoDB call inside, sent over UDP to the daemon address Lambda gives (the bundle run away from
// node_modules, tools/harness/lambda-process.ts). No X-Ray SDK is bundled (shared/observability/
// xray.ts says why). And node:http, which bundled modules import as an ES module, comes from Node's
// own module without its facade (infra/constructs/lambda-node-http.ts): the bundle answers over
// plain http here, through it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { petsTable } from '../../shared/dynamodb/tables.ts';
import type { SubsegmentDocument } from '../../shared/observability/xray.ts';
import { startLambdaProcess } from '../../tools/harness/lambda-process.ts';
import { sampleEvent, sampleRequests } from '../../tools/harness/sample-requests.ts';
import { startXRayDaemon, type XRayDaemon } from '../../tools/harness/xray-daemon.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { segmentDocumentErrors } from '../support/xray.ts';
import { bundleSources, functionBundle } from './support/bundle.ts';
import { type SynthesizedApp, synthesized } from './support/synth.ts';

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

const stagingBundle = (name: 'getPet') => functionBundle(app, 'staging', name);

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
  const event = sampleEvent('getPet', sampleRequests.getPet.notFound!, { keyId: 'key_Traced01' });
  const host = await startLambdaProcess({
    ...{ bundle: stagingBundle('getPet'), functionName: 'getPet', dynamodbEndpoint: dynamodb.endpoint },
    tracing: { daemonAddress: daemon.address, sampled: true },
  });
  try {
    const { answer, trace } = await host.invoke(event);
    expect(answer).toMatchObject({ statusCode: 404 }); // DynamoDB answered: no such animal
    const documents = (await daemon.take()).map((d) => d.document as unknown as SubsegmentDocument);
    expect(documents).toHaveLength(1);
    const [handler] = documents as [SubsegmentDocument];
    expect(segmentDocumentErrors(handler)).toEqual([]);
    const { root, parent } = trace!;
    expect(handler).toMatchObject({ name: '## index.handler', trace_id: root, parent_id: parent, error: true });
    const { requestId } = event.requestContext;
    expect(handler.annotations).toMatchObject({ operation: 'getPet', keyId: 'key_Traced01', requestId });
    expect(handler.subsegments?.map((s) => [s.name, s.aws?.operation, s.aws?.table_name])).toEqual([
      ['DynamoDB', 'GetItem', petsTable.name],
    ]);
  } finally {
    await host.stop();
  }
});
