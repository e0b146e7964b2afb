// createPet's bundle loads its idempotency code on the first request with an Idempotency-Key, from
// a chunk beside index.mjs (shared/lambda/idempotency.ts; esbuild's code splitting,
// infra/constructs/bundled-function.ts): run away from node_modules as Lambda runs it, against
// DynamoDB, a keyed create and its retry still make one animal, and a create without a key
// works before the chunk was ever loaded.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { LOCAL_AWS_ENV } from '../../infra/local/function-environment.ts';
import { tables } from '../../shared/dynamodb/tables.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { jsonPost } from '../support/in-process.ts';
import { type SynthesizedApp, synthesized } from './support/synth.ts';
import { resource } from './support/template.ts';

let app: SynthesizedApp;
let dynamodb: TestDynamoDB;
beforeAll(async () => {
  [app, dynamodb] = await Promise.all([synthesized(), startTestDynamoDB()]);
}, 300_000);
afterAll(() => dynamodb?.close());

test('a cold createPet answers a create without a key, then loads its idempotency chunk for a keyed one and replays it', async () => {
  const key = resource(app.template('production'), app.index.production.functions.createPet.function).Properties!.Code
    .S3Key as string;
  const outside = mkdtempSync(join(tmpdir(), 'petstore-idempotency-'));
  const body = JSON.stringify({ name: 'Chunky', categoryId: 1 });
  // One process, as one Lambda environment: no key, then a key, then its retry.
  const events = [
    jsonPost(body),
    jsonPost(body, { 'Idempotency-Key': 'bundle-1' }),
    jsonPost(body, { 'Idempotency-Key': 'bundle-1' }),
  ];
  const script = `
    const { handler } = await import(process.argv[1] + '/index.mjs');
    const context = { functionName: 'createPet', awsRequestId: 'aws-1', getRemainingTimeInMillis: () => 10000 };
    const answers = [];
    for (const event of JSON.parse(process.argv[2])) {
      const { statusCode, headers, body } = await handler(event, context);
      answers.push([statusCode, JSON.parse(body).id, headers['Idempotent-Replayed'] ?? null]);
    }
    console.log(JSON.stringify(answers));
  `;
  try {
    cpSync(join(app.dir, `asset.${key.replace(/\.zip$/, '')}`), join(outside, 'createPet'), { recursive: true });
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--input-type=module', '-e', script, join(outside, 'createPet'), JSON.stringify(events)],
      {
        cwd: outside,
        encoding: 'utf8',
        env: {
          PATH: process.env.PATH,
          ...LOCAL_AWS_ENV,
          AWS_ENDPOINT_URL_DYNAMODB: dynamodb.endpoint,
          POWERTOOLS_LOG_LEVEL: 'SILENT',
          POWERTOOLS_METRICS_DISABLED: 'true',
          ...Object.fromEntries(tables.map((table) => [table.envVar, table.name])),
        },
      },
    );
    const [plain, keyed, retried] = JSON.parse(stdout.trim().split('\n').at(-1)!) as [number, number, string | null][];
    expect(plain).toEqual([201, expect.any(Number), null]);
    expect(keyed).toEqual([201, expect.any(Number), null]);
    expect(keyed![1]).not.toBe(plain![1]);
    // The retry made nothing: the first create's answer again, marked as a replay.
    expect(retried).toEqual([201, keyed![1], 'true']);
  } finally {
    rmSync(outside, { recursive: true, force: true });
  }
});
