// The local stage's functions reach the embedded DynamoDB through its Unix socket (no signature
// check on their path: docs/performance.md, "The embedded DynamoDB's privacy at a fraction of its
// cost"); test/e2e/idempotency-clock.test.ts shows that pointing AWS_ENDPOINT_URL_DYNAMODB at a
// proxy before their first call still reaches the proxy.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type LocalStage, startLocalStage } from '../../infra/local/stage.ts';
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
