// Tracing as a deployed function with the Tracer on does it: the real X-Ray SDK, in Lambda
// mode, sends its (sub)segments over UDP to a "daemon" that is a socket of this test. Each
// DynamoDB call is a subsegment; the handler's subsegment carries the annotations operation,
// keyId and requestId; nothing sent ever holds the key.
import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { KeysRepository } from '../../shared/domain/stores.ts';
import { createKeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { keysTable } from '../../shared/dynamodb/tables.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { type Functions, loadFunctions, proxyEvent, setFunctionEnv, tokenEvent } from '../support/in-process.ts';

type Segment = {
  name: string;
  annotations?: Record<string, unknown>;
  aws?: { operation?: string; table_name?: string };
  subsegments?: Segment[];
};

let db: TestDynamoDB;
let daemon: Socket;
let functions: Functions;
let keys: KeysRepository;
const received: string[] = [];

beforeAll(async () => {
  db = await startTestDynamoDB();
  daemon = createSocket('udp4');
  daemon.on('message', (message) => received.push(message.toString('utf8')));
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
  setFunctionEnv(db.endpoint);
  // What Lambda sets for a function with active tracing, plus the Tracer turned on as the stack does.
  Object.assign(process.env, {
    POWERTOOLS_TRACE_ENABLED: 'true',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    LAMBDA_TASK_ROOT: '/var/task',
    _HANDLER: 'index.handler',
    AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${(daemon.address() as AddressInfo).port}`,
    AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
  });
  functions = await loadFunctions();
  keys = createKeysRepository(db.client, keysTable.name);
}, 60_000);
afterAll(async () => {
  daemon?.close();
  await db?.close();
});

/** Invokes `call` as one sampled Lambda invocation (its own trace id) and returns every segment sent. */
const traced = async (call: () => Promise<unknown>): Promise<{ segments: Segment[]; raw: string }> => {
  const traceId = `1-${Math.floor(Date.now() / 1000).toString(16)}-${crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`;
  process.env._X_AMZN_TRACE_ID = `Root=${traceId};Parent=53995c3f42cd8ad8;Sampled=1`;
  received.length = 0;
  await call();
  await sleep(300);
  const documents = received.map((datagram) => datagram.slice(datagram.indexOf('\n') + 1));
  const flatten = (segment: Segment): Segment[] => [segment, ...(segment.subsegments ?? []).flatMap(flatten)];
  return { segments: documents.flatMap((d) => flatten(JSON.parse(d) as Segment)), raw: documents.join('\n') };
};

test('createPet: each DynamoDB call a subsegment, the handler annotated with operation, keyId and requestId', async () => {
  const { segments } = await traced(() =>
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
  const handler = segments.find((s) => s.name === '## index.handler');
  expect(handler?.annotations).toMatchObject({
    operation: 'createPet',
    keyId: 'key_Traced01',
    requestId: 'req-traced',
  });
  const dynamodb = segments.filter((s) => s.name === 'DynamoDB').map((s) => s.aws?.operation);
  // A new container reserves an id block (UpdateItem), then puts the animal.
  expect(dynamodb.sort()).toEqual(['PutItem', 'UpdateItem']);
});

test('the authorizer: annotated with the key id, and no segment holds the key', async () => {
  const { key, keyId } = await keys.create('traced');
  const { segments, raw } = await traced(() => functions.authorize(tokenEvent(`Bearer ${key}`)));
  const handler = segments.find((s) => s.name === '## index.handler');
  expect(handler?.annotations).toMatchObject({ operation: 'authorizer', keyId });
  // The key's lookup, then (its first check in 5 minutes) the record of its last use.
  expect(segments.filter((s) => s.name === 'DynamoDB').map((s) => s.aws?.operation)).toEqual(['GetItem', 'UpdateItem']);
  expect(raw).not.toContain(key);
  expect(raw).not.toContain(key.slice(4));
});
