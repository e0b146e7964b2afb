// What a sampled invocation sends X-Ray, captured by a socket of this test standing in for the
// daemon: the functions run in this process with what Lambda sets under active tracing and the
// tracing switch the stack sets. Each document must be one X-Ray accepts (the segment document
// schema, test/support/xray.ts) and sit where X-Ray places it: the handler's subsegment under
// Lambda's function segment (the header's Parent) in the invocation's trace, each DynamoDB call a
// subsegment inside it. An unsampled invocation sends nothing; nothing sent holds the key.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import type { KeysRepository } from '../../shared/domain/stores.ts';
import { DYNAMODB_TIME_BUDGET } from '../../shared/dynamodb/client.ts';
import { createDocumentClient } from '../../shared/dynamodb/document-client.ts';
import { createKeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { keysTable, petsTable } from '../../shared/dynamodb/tables.ts';
import type { Subsegment, SubsegmentDocument } from '../../shared/observability/xray.ts';
import { traceHeader } from '../../tools/harness/trace-header.ts';
import { startXRayDaemon, type XRayDaemon } from '../../tools/harness/xray-daemon.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { type FaultyDynamoDB, startFaultyDynamoDB } from '../support/faulty-dynamodb.ts';
import { type Functions, loadFunctions, proxyEvent, setFunctionEnv, tokenEvent } from '../support/in-process.ts';
import { segmentDocumentErrors } from '../support/xray.ts';

let db: TestDynamoDB;
let faulty: FaultyDynamoDB;
let daemon: XRayDaemon;
let functions: Functions;
let keys: KeysRepository;
let xray: typeof import('../../shared/observability/xray.ts');

beforeAll(async () => {
  [db, faulty, daemon] = await Promise.all([startTestDynamoDB(), startFaultyDynamoDB('throttling'), startXRayDaemon()]);
  setFunctionEnv(db.endpoint);
  // What Lambda sets for a function with active tracing, and the stack's tracing switch.
  Object.assign(process.env, {
    POWERTOOLS_TRACE_ENABLED: 'true',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    LAMBDA_TASK_ROOT: '/var/task',
    _HANDLER: 'index.handler',
    AWS_XRAY_DAEMON_ADDRESS: daemon.address,
  });
  functions = await loadFunctions();
  xray = await import('../../shared/observability/xray.ts');
  keys = createKeysRepository(db.client, keysTable.name);
}, 60_000);
afterAll(async () => {
  daemon?.close();
  await Promise.all([db?.close(), faulty?.close()]);
});

/** Runs `call` as one Lambda invocation (its own trace header) and returns what reached the daemon. */
const invocation = async (call: () => Promise<unknown>, sampled = true) => {
  const { root, parent, header } = traceHeader(sampled);
  process.env._X_AMZN_TRACE_ID = header;
  await call();
  const datagrams = await daemon.take();
  return { root, parent, datagrams, documents: datagrams.map((d) => d.document as unknown as SubsegmentDocument) };
};

/** The one document of a sampled invocation, checked against the schema and placed in its trace. */
const handlerSubsegment = async (call: () => Promise<unknown>): Promise<SubsegmentDocument> => {
  const { root, parent, datagrams, documents } = await invocation(call);
  expect(datagrams.map((d) => d.header)).toEqual([{ format: 'json', version: 1 }]);
  const [document] = documents as [SubsegmentDocument];
  expect(segmentDocumentErrors(document)).toEqual([]);
  // The schema does refuse what X-Ray would: a subsegment sent alone without its parent.
  expect(segmentDocumentErrors({ ...document, parent_id: undefined })).not.toEqual([]);
  expect(document).toMatchObject({ type: 'subsegment', name: '## index.handler', trace_id: root, parent_id: parent });
  // Children inside their parent's time, ids unique within the trace.
  for (const child of document.subsegments ?? []) {
    expect(child.start_time).toBeGreaterThanOrEqual(document.start_time);
    expect(child.end_time).toBeLessThanOrEqual(document.end_time!);
  }
  const ids = [document, ...(document.subsegments ?? [])].map((s) => s.id);
  expect(new Set(ids).size).toBe(ids.length);
  return document;
};

const dynamodbCalls = (document: Subsegment) => (document.subsegments ?? []).filter((s) => s.name === 'DynamoDB');

test('createPet: the handler annotated with operation, keyId and requestId; each DynamoDB call a subsegment', async () => {
  const handler = await handlerSubsegment(() =>
    functions.invoke(
      proxyEvent({
        method: 'POST',
        path: '/v1/pets',
        body: '{"name":"Rex","categoryId":3}',
        headers: { 'Content-Type': 'application/json' },
        requestId: 'req-traced',
        principalId: 'key_Traced01',
      }),
    ),
  );
  expect(handler.annotations).toEqual({
    Service: 'petstore',
    ColdStart: expect.any(Boolean),
    operation: 'createPet',
    keyId: 'key_Traced01',
    requestId: 'req-traced',
  });
  expect(handler.fault ?? handler.error).toBeUndefined();
  // A new container reserves an id block (UpdateItem), then puts the animal.
  expect(dynamodbCalls(handler).map((s) => [s.namespace, s.aws?.operation, s.http?.response.status])).toEqual([
    ['aws', 'UpdateItem', 200],
    ['aws', 'PutItem', 200],
  ]);
  expect(dynamodbCalls(handler)[1]!.aws).toMatchObject({ table_name: petsTable.name, retries: 0 });
});

test('getPet of an animal that is not there: a 404 flags the handler an error, its cause the typed error', async () => {
  const handler = await handlerSubsegment(() =>
    functions.invoke(proxyEvent({ path: '/v1/pets/999999', requestId: 'req-missing' })),
  );
  expect(handler).toMatchObject({ error: true, annotations: { operation: 'getPet', requestId: 'req-missing' } });
  expect(handler.fault).toBeUndefined();
  expect(handler.cause?.exceptions[0]?.type).toBe('NotFoundError');
  expect(dynamodbCalls(handler).map((s) => s.aws?.operation)).toEqual(['GetItem']);
});

test('the authorizer: annotated with the key id, a refused key is no fault, and no document holds the key', async () => {
  const { key, keyId } = await keys.create('traced');
  const allowed = await invocation(() => functions.authorize(tokenEvent(`Bearer ${key}`)));
  expect(allowed.documents).toHaveLength(1);
  const [handler] = allowed.documents as [SubsegmentDocument];
  expect(segmentDocumentErrors(handler)).toEqual([]);
  expect(handler.annotations).toMatchObject({ operation: 'authorizer', keyId });
  // The key's lookup, then (its first check in 5 minutes) the record of its last use.
  expect(dynamodbCalls(handler).map((s) => s.aws)).toEqual([
    expect.objectContaining({ operation: 'GetItem', table_name: keysTable.name }),
    expect.objectContaining({ operation: 'UpdateItem', table_name: keysTable.name }),
  ]);
  const raw = JSON.stringify(allowed.documents);
  expect(raw).not.toContain(key);
  expect(raw).not.toContain(key.slice(4));

  await keys.revoke(keyId);
  const refused = await handlerSubsegment(() =>
    functions.authorize(tokenEvent(`Bearer ${key}`)).catch((error: Error) => error),
  );
  expect(refused).toMatchObject({ annotations: { operation: 'authorizer', keyId } });
  expect(refused.fault ?? refused.error).toBeUndefined();
});

/** The JSON lines `call` writes to stdout (the summary lines), with the invocation's header set as Lambda sets it. */
const linesOf = async (call: () => Promise<unknown>, sampled: boolean) => {
  const { root, header } = traceHeader(sampled);
  process.env._X_AMZN_TRACE_ID = header;
  const written: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    written.push(String(chunk));
    return true;
  });
  try {
    await call();
  } finally {
    write.mockRestore();
  }
  await daemon.take();
  const lines = written
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'));
  return { root, lines: lines.map((line) => JSON.parse(line) as { message: string; xray_trace_id?: string }) };
};

// Powertools Logger names the invocation's trace on every line: `xray_trace_id`, the Root of the
// trace header Lambda sets (https://docs.aws.amazon.com/powertools/typescript/latest/features/logger/#standard-structured-keys).
test.each([true, false])("sampled %s: each summary line names its own invocation's trace", async (sampled) => {
  const { key } = await keys.create('lines');
  // Fresh modules with INFO logged: the Logger's level is fixed when it is made.
  vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'INFO');
  vi.resetModules();
  const logging = await loadFunctions().finally(() => vi.unstubAllEnvs());
  for (const call of [
    () => logging.invoke(proxyEvent({ path: '/v1/pets/999999', requestId: 'req-lines' })),
    () => logging.invoke(proxyEvent({ path: '/v1/pets?limit=2' })),
    () => logging.authorize(tokenEvent(`Bearer ${key}`)),
    () => logging.authorize(tokenEvent('Bearer pet_nonesuch')).catch((error: Error) => error),
  ]) {
    const { root, lines } = await linesOf(call, sampled);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.map((line) => [line.message, line.xray_trace_id])).toEqual(lines.map((l) => [l.message, root]));
  }
});

test('an unsampled invocation sends nothing', async () => {
  const { datagrams } = await invocation(() => functions.invoke(proxyEvent({ path: '/v1/pets?limit=2' })), false);
  expect(datagrams).toEqual([]);
});

test('ids stay random and distinct past the batch of entropy they are cut from: 1,200 handler subsegments', async () => {
  await daemon.take(); // none of an earlier test's
  const ids: string[] = [];
  // 100 at a time, taken before the next: the test socket's buffer would drop a burst of 1,200.
  for (let batch = 0; batch < 12; batch++) {
    for (let i = 0; i < 100; i++) {
      process.env._X_AMZN_TRACE_ID = traceHeader(true).header;
      xray.beginTrace();
      await xray.endTrace({ status: 200 });
    }
    ids.push(...(await daemon.take()).map((d) => (d.document as unknown as SubsegmentDocument).id));
  }
  expect(ids).toHaveLength(1_200);
  // X-Ray's format: 64 bits as 16 hex digits (test/support/xray.ts holds every document to it).
  expect(ids.filter((id) => !/^[0-9a-f]{16}$/.test(id))).toEqual([]);
  expect(new Set(ids).size).toBe(1_200);
}, 60_000);

test('a throttled DynamoDB call: its retries counted, flagged throttle and error, the exception its cause', async () => {
  process.env.AWS_ENDPOINT_URL_DYNAMODB = faulty.endpoint;
  const client = createDocumentClient({ ...DYNAMODB_TIME_BUDGET, backoffMs: () => 1 }, xray.traceDynamoDBCalls);
  try {
    const { root, parent, documents } = await invocation(async () => {
      xray.beginTrace();
      const error = await client
        .send(new GetCommand({ TableName: 'Throttled', Key: { id: 1 } }))
        .catch((e: unknown) => e);
      await xray.endTrace({ status: 503, error });
    });
    expect(documents).toHaveLength(1);
    const [handler] = documents as [SubsegmentDocument];
    expect(segmentDocumentErrors(handler)).toEqual([]);
    expect(handler).toMatchObject({ trace_id: root, parent_id: parent, fault: true });
    expect(dynamodbCalls(handler)).toEqual([
      expect.objectContaining({
        aws: expect.objectContaining({ operation: 'GetItem', table_name: 'Throttled', retries: 2 }),
        http: { response: { status: 400 } },
        throttle: true,
        error: true,
        cause: {
          exceptions: [expect.objectContaining({ type: 'ProvisionedThroughputExceededException', remote: true })],
        },
      }),
    ]);
  } finally {
    client.destroy();
    process.env.AWS_ENDPOINT_URL_DYNAMODB = db.endpoint;
  }
});
