// A signed request to the embedded DynamoDB's TCP port cannot be replayed for long: AWS refuses a
// request whose X-Amz-Date is more than 15 minutes from its clock ("the request signature is
// valid for 15 minutes": https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-signing-elements.html,
// "Date"), and the store's credential dies with it (a new secret at every start). Each request
// here is captured as the SDK sent it, then sent again byte for byte, as whoever saw it would.

import { rmSync } from 'node:fs';
import { request } from 'node:http';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeEach, expect, test, vi } from 'vitest';
import { type EmbeddedDynamoDB, startEmbeddedDynamoDB } from '../../infra/local/embedded-dynamodb.ts';
import { localClientConfig } from '../../infra/local/function-environment.ts';
import { newDataDir } from '../../tools/harness/local-server.ts';

interface Captured {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

const dataDir = newDataDir();
let dynamodb: EmbeddedDynamoDB;

/** Sends one signed ListTables to the store's TCP port and returns it as it went on the wire. */
const capture = async (): Promise<Captured> => {
  const url = new URL(dynamodb.endpoint);
  url.searchParams.delete('socket'); // the port, where a replay could come from
  const client = new DynamoDBClient({ ...localClientConfig(url.href), maxAttempts: 1 });
  let captured: Captured | undefined;
  client.middlewareStack.add(
    (next: (args: any) => Promise<any>) => async (args: any) => {
      const { method, path, headers, body } = args.request;
      captured = { method, path, headers: { ...headers }, body };
      return next(args);
    },
    { step: 'finalizeRequest', priority: 'low', name: 'capture' }, // after the signer
  );
  try {
    await client.send(new ListTablesCommand({}));
  } finally {
    client.destroy();
  }
  expect(captured?.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 /);
  return captured!;
};

/** `captured` sent again to the store's port as it was (its Host header too); the answer's status. */
const replay = (captured: Captured): Promise<number> =>
  new Promise((resolve, reject) => {
    const { port } = new URL(dynamodb.address);
    const sent = request({
      host: '127.0.0.1',
      port,
      method: captured.method,
      path: captured.path,
      headers: captured.headers,
    });
    sent.on('response', (response) => {
      response.resume();
      resolve(response.statusCode!);
    });
    sent.on('error', reject);
    sent.end(captured.body);
  });

beforeEach(async () => {
  dynamodb = await startEmbeddedDynamoDB(dataDir);
});
afterEach(async () => {
  vi.useRealTimers();
  await dynamodb.close();
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

test('a captured request replayed at once is answered (AWS allows its 15 minutes)', async () => {
  expect(await replay(await capture())).toBe(200);
});

test('a captured request replayed 16 minutes later is refused', async () => {
  const captured = await capture();
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 14 * 60 * 1000 });
  expect(await replay(captured), 'within the window').toBe(200);
  vi.setSystemTime(Date.now() + 2 * 60 * 1000); // 16 minutes after it was signed
  expect(await replay(captured)).toBe(400);
});

test('a request signed with a clock 16 minutes ahead is refused too', async () => {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 16 * 60 * 1000 });
  const captured = await capture().catch(() => undefined); // the SDK's own call is refused
  vi.useRealTimers();
  expect(captured).toBeDefined();
  expect(await replay(captured!)).toBe(400);
});

test('a captured request replayed after a restart is refused: the credential died with the store', async () => {
  const captured = await capture();
  await dynamodb.close();
  dynamodb = await startEmbeddedDynamoDB(dataDir);
  expect(await replay(captured)).toBe(400);
});
