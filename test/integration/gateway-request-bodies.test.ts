// The local gateway's reading of bodies (infra/local/request-body.ts), with the budget, a key's
// share and the time a body may take made small, so that what takes 10 s and thousands of
// uploads on `npm start`'s defaults (test/e2e/body-budget.test.ts) takes a moment here: a body
// that does not come in time is the contract's 400 and frees its share; a request that leaves
// while it waits for its turn takes no one's. The functions echo what they got; the gateway is the real one.
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { AccessLogLine } from '../../infra/access-log.ts';
import { createAuthorizerCache } from '../../infra/local/authorizer-cache.ts';
import { createGateway } from '../../infra/local/gateway.ts';
import { MAX_BODY_BYTES, routes } from '../../shared/api/routes.ts';
import { generateKey } from '../../shared/domain/api-keys.ts';

const TIMEOUT_MS = 500;
const accessLog: AccessLogLine[] = [];
const [keyA, keyB] = [generateKey(), generateKey()];
let server: Server;
let port: number;

beforeAll(async () => {
  const listener = createGateway({
    stage: 'local',
    functions: Object.fromEntries(
      routes.map(({ operationId }) => [
        operationId,
        {
          name: operationId,
          // The body as the function got it (application/json is one of the API's binary media types).
          invoke: async ({ body, isBase64Encoded }: APIGatewayProxyEvent) => ({
            statusCode: 201,
            body: JSON.stringify({ body: body && Buffer.from(body, isBase64Encoded ? 'base64' : 'utf8').toString() }),
          }),
        },
      ]),
    ) as Parameters<typeof createGateway>[0]['functions'],
    authorizer: {
      name: 'allows',
      // Each key its own principal and API key: the shares are per key.
      invoke: async ({ authorizationToken, methodArn }) => ({
        principalId: authorizationToken.endsWith(keyA) ? 'key_A' : 'key_B',
        usageIdentifierKey: authorizationToken.endsWith(keyA) ? 'usageA' : 'usageB',
        policyDocument: {
          Version: '2012-10-17',
          Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: methodArn }],
        },
      }),
    },
    authorizerCache: createAuthorizerCache(0),
    throttle: { rate: 1000, burst: 1000 },
    // A key's share: one of the largest bodies; no reserve beyond it, so that the shares are what is under test.
    bodies: {
      totalBytes: 4 * (MAX_BODY_BYTES + 1),
      keyShareBytes: MAX_BODY_BYTES + 1,
      keyReserveBytes: 0,
      timeoutMs: TIMEOUT_MS,
    },
    accessLog: (line) => accessLog.push(line),
  });
  server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

interface Upload {
  socket: Socket;
  /** Everything the server wrote until it closed the connection. */
  closed: Promise<string>;
}

/** A POST /v1/pets of `key` that declares `framing` and sends `body` (nothing by default). */
const upload = (key: string, framing: string, body = ''): Upload => {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  socket.on('data', (data) => (text += data));
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(text)));
  socket.on('error', () => undefined);
  socket.write(
    `POST /v1/pets HTTP/1.1\r\nHost: local\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n${framing}\r\n\r\n${body}`,
  );
  return { socket, closed };
};

const statusOf = (text: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
const bodyOf = (text: string) => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;

test.each([
  ['chunked, and nothing sent', 'Transfer-Encoding: chunked', ''],
  ['a declared 100 bytes, 10 of them sent', 'Content-Length: 100', '{"name":"a'],
])('a body not received in time (%s): 400 naming the body, and the connection closes', async (_, framing, part) => {
  const started = performance.now();
  const text = await upload(keyA, framing, part).closed;
  const elapsed = performance.now() - started;
  expect(statusOf(text), text).toBe(400);
  expect(text).toMatch(/\r\nConnection: close\r\n/i);
  const body = bodyOf(text);
  expect(body).toMatchObject({ code: 'BAD_REQUEST', status: 400, details: [{ field: 'body' }] });
  expect(body.message).toMatch(/not received within 0\.5 s/);
  expect(body.requestId).toBe(/x-amzn-RequestId: (\S+)/i.exec(text)?.[1]);
  expect(accessLog.find((line) => line.requestId === body.requestId)?.errorResponseType).toBe('DEFAULT_4XX');
  expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
  expect(elapsed).toBeLessThan(TIMEOUT_MS + 2_000);
});

test('a late body frees its share: the key’s next request, which waited for it, is served', async () => {
  const stalled = upload(keyA, 'Transfer-Encoding: chunked');
  await new Promise((resolve) => setTimeout(resolve, 50));
  const body = '{"name":"next","categoryId":1}';
  const next = upload(keyA, `Content-Length: ${body.length}\r\nConnection: close`, body);
  expect(statusOf(await stalled.closed)).toBe(400);
  expect(bodyOf(await next.closed)).toEqual({ body });
});

test('another key is served while one key’s share is held by a stalled upload', async () => {
  const stalled = upload(keyA, 'Transfer-Encoding: chunked');
  await new Promise((resolve) => setTimeout(resolve, 50));
  const body = '{"name":"other","categoryId":1}';
  const started = performance.now();
  const other = await upload(keyB, `Content-Length: ${body.length}\r\nConnection: close`, body).closed;
  expect(bodyOf(other)).toEqual({ body });
  expect(performance.now() - started).toBeLessThan(TIMEOUT_MS / 2);
  stalled.socket.destroy();
});

test('a request that leaves while it waits for its turn takes none: the one behind it is served', async () => {
  // The key's share is held by a chunked upload that sends its body slowly, but in time.
  const holder = upload(keyA, 'Transfer-Encoding: chunked');
  await new Promise((resolve) => setTimeout(resolve, 50));
  const leaving = upload(keyA, 'Transfer-Encoding: chunked');
  await new Promise((resolve) => setTimeout(resolve, 50)); // in line before the next
  const body = '{"name":"behind","categoryId":1}';
  const behind = upload(keyA, `Content-Length: ${body.length}\r\nConnection: close`, body);
  await new Promise((resolve) => setTimeout(resolve, 50));
  leaving.socket.destroy();
  await new Promise((resolve) => setTimeout(resolve, 50)); // the server sees it leave before the holder ends
  holder.socket.end('3\r\n{}\n\r\n0\r\n\r\n');
  expect(bodyOf(await holder.closed)).toEqual({ body: '{}\n' });
  // Its turn came with the holder's answer, not with a timeout of anyone's (before: never).
  const answer = await Promise.race([
    behind.closed,
    new Promise<string>((resolve) => setTimeout(() => resolve('no answer'), TIMEOUT_MS / 2)),
  ]);
  expect(statusOf(answer), answer).toBe(201);
  expect(bodyOf(answer)).toEqual({ body });
});
