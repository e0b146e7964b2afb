// The local stage's functions reach the embedded DynamoDB through its Unix socket (no signature
// check on their path: docs/performance.md, "The embedded DynamoDB's privacy at a fraction of its
// cost"); test/e2e/idempotency-clock.test.ts shows that pointing AWS_ENDPOINT_URL_DYNAMODB at a
// proxy before their first call still reaches the proxy.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { rmSync } from 'node:fs';
import { type ClientRequest, createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type LocalStage, startLocalStage } from '../../infra/local/stage.ts';
import { createDynamoDBClient } from '../../shared/dynamodb/client.ts';
import { newDataDir } from '../../tools/harness/local-server.ts';

let stage: LocalStage;
beforeAll(async () => {
  stage = await startLocalStage({
    port: 0,
    host: '127.0.0.1',
    dataDir: newDataDir(),
    authorizerCacheTtlSeconds: 0,
    throttle: { rate: 1e6, burst: 1e6 },
    logLevel: 'SILENT',
  });
});
afterAll(async () => {
  await stage?.close();
  if (stage) rmSync(stage.dataDir, { recursive: true, force: true });
});

const createPet = (name: string) =>
  fetch(`${stage.baseUrl}/pets`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${stage.key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name, categoryId: 1 }),
  });

test('every DynamoDB request of a create and a read arrives on the socket, none on the TCP port', async () => {
  const arrived: Array<'socket' | 'tcp'> = [];
  const onRequest = (message: unknown) => {
    const { request } = message as { request: IncomingMessage };
    if (request.headers['x-amz-target']) arrived.push(request.socket.remoteAddress === undefined ? 'socket' : 'tcp');
  };
  subscribe('http.server.request.start', onRequest);
  try {
    const created = await createPet('Through the socket');
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    const read = await fetch(`${stage.baseUrl}/pets/${id}`, { headers: { Authorization: `Bearer ${stage.key}` } });
    expect(read.status).toBe(200);
  } finally {
    unsubscribe('http.server.request.start', onRequest);
  }
  expect(arrived.length).toBeGreaterThan(1);
  expect(arrived.filter((path) => path === 'tcp')).toEqual([]);
});

/**
 * A SigV4 Authorization header: the algorithm, the credential scope, the signed headers, and
 * `Signature=` with 64 hex digits (https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html).
 */
const SIGV4 = /^AWS4-HMAC-SHA256 Credential=\S+, SignedHeaders=\S+, Signature=[0-9a-f]{64}$/;

// Seen from the functions' side (the requests as they leave), wherever the store answers them.
test('no request the functions send down the socket is signed: nothing there reads a signature', async () => {
  const sent: Array<{ socket: boolean; authorization: unknown }> = [];
  const onResponse = (message: unknown) => {
    const { request, response } = message as { request: ClientRequest; response: IncomingMessage };
    if (!request.getHeader('x-amz-target')) return;
    sent.push({
      socket: response.socket.remoteAddress === undefined,
      authorization: request.getHeader('authorization'),
    });
  };
  subscribe('http.client.response.finish', onResponse);
  try {
    const created = await createPet('Unsigned');
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    const read = await fetch(`${stage.baseUrl}/pets/${id}`, { headers: { Authorization: `Bearer ${stage.key}` } });
    expect(read.status).toBe(200);
  } finally {
    unsubscribe('http.client.response.finish', onResponse);
  }
  expect(sent.length).toBeGreaterThan(1);
  expect(sent.filter((request) => !request.socket)).toEqual([]);
  expect(sent.filter((request) => SIGV4.test(String(request.authorization)))).toEqual([]);
});

test('a request the functions send anywhere but the socket is signed', async () => {
  // Another DynamoDB endpoint in the environment (a test's proxy), the stage's socket setting unchanged.
  const seen: string[] = [];
  const other = createServer((req, res) => {
    seen.push(req.headers.authorization ?? '');
    req.resume();
    res.writeHead(200, { 'Content-Type': 'application/x-amz-json-1.0' }).end('{}');
  });
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB;
  process.env.AWS_ENDPOINT_URL_DYNAMODB = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  const client = createDynamoDBClient();
  try {
    await client.send(new GetItemCommand({ TableName: 'pets', Key: { id: { N: '1' } } }));
  } finally {
    client.destroy();
    process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
    other.close();
  }
  expect(seen).toHaveLength(1);
  expect(seen[0]).toMatch(SIGV4);
});
