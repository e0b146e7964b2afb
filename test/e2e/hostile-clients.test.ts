// What a client can send that no well-behaved client does: two Authorization headers,
// methods no route has (CONNECT, FOO, lower-case get), bodies that are not UTF-8, and
// requests it abandons or garbles. Raw sockets: fetch would refuse or repair them.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { LocalServer } from '../../tools/harness/local-server.ts';
import {
  type Animal,
  allPages,
  call,
  disposeServer,
  expectError,
  postPet,
  type Reply,
  startServer,
} from './support.ts';

let server: LocalServer;
beforeAll(async () => {
  server = await startServer({ LOG_LEVEL: 'INFO', PETSTORE_AUTHORIZER_CACHE_TTL: '0' });
});
afterAll(() => disposeServer(server));

const address = () => new URL(server.baseUrl);

/** Sends `request` as bytes on a new connection; resolves to everything the server wrote before closing. */
const raw = (request: string | Buffer, { endAfterMs = 2000 } = {}): Promise<string> =>
  new Promise((resolve, reject) => {
    const { hostname, port } = address();
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.on('data', (chunk) => (received += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    socket.write(request);
    setTimeout(() => socket.end(), endAfterMs).unref();
  });

/** The first HTTP response in `text`, as the e2e helpers' Reply. */
const parseResponse = (text: string): Reply => {
  const [head = '', ...rest] = text.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = new Headers(
    headerLines.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
  );
  const body = rest.join('\r\n\r\n').slice(0, Number(headers.get('content-length') ?? 0));
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) as unknown, url: server.baseUrl };
};

const path = (suffix: string) => `${address().pathname}${suffix}`;
const host = () => `Host: ${address().host}\r\n`;

describe('two Authorization headers', () => {
  test.each([
    ['valid, then garbage', () => [`Bearer ${server.key}`, 'garbage']],
    ['garbage, then valid', () => ['garbage', `Bearer ${server.key}`]],
    ['the valid key twice', () => [`Bearer ${server.key}`, `Bearer ${server.key}`]],
  ])('%s: 401', async (_, headers) => {
    const lines = headers()
      .map((value) => `Authorization: ${value}\r\n`)
      .join('');
    const reply = parseResponse(
      await raw(`GET ${path('/pets')} HTTP/1.1\r\n${host()}${lines}Connection: close\r\n\r\n`),
    );
    expectError(reply, 401, 'UNAUTHORIZED', [server.key]);
  });
});

describe('a method no route has: 404 with the Error body, whatever the Authorization', () => {
  test.each(['CONNECT', 'FOO', 'get', 'Get', 'PROPFIND'])('%s', async (method) => {
    const target = method === 'CONNECT' ? address().host : path('/pets');
    const reply = parseResponse(
      await raw(
        `${method} ${target} HTTP/1.1\r\n${host()}Authorization: Bearer ${server.key}\r\nConnection: close\r\n\r\n`,
      ),
    );
    expectError(reply, 404, 'NOT_FOUND', [server.key]);
  });
});

describe('createPet bodies that are not UTF-8', () => {
  const post = (body: Buffer | string, contentType = 'application/json') =>
    call(server, '/pets', {
      method: 'POST',
      headers: { 'Content-Type': contentType },
      body: typeof body === 'string' ? body : new Uint8Array(body),
    });
  const latin1Cafe = Buffer.concat([
    Buffer.from('{"name": "Caf'),
    Buffer.from([0xe9]),
    Buffer.from('", "categoryId": 1}'),
  ]);

  test.each([
    ['a Latin-1 byte', latin1Cafe],
    [
      'a truncated sequence',
      Buffer.concat([Buffer.from('{"name": "x'), Buffer.from([0xe2, 0x82]), Buffer.from('", "categoryId": 1}')]),
    ],
    [
      'an encoded surrogate',
      Buffer.concat([Buffer.from('{"name": "x'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('", "categoryId": 1}')]),
    ],
    ['a lone surrogate escape', Buffer.from('{"name": "Caf\\ud800", "categoryId": 1}')],
    ['a lone surrogate escape in a field name', Buffer.from('{"name": "Rex", "categoryId": 1, "\\udfff": 1}')],
  ])('%s: 400', async (_, body) => {
    const body400 = expectError(await post(body), 400, 'BAD_REQUEST');
    expect(body400.details!.map((d) => d.field)).toContain('body');
  });

  test.each([
    'application/json; charset=iso-8859-1',
    'application/json; charset=utf-16',
    'application/json;charset="latin1"',
  ])('%s: 415', async (contentType) => {
    expectError(await post(latin1Cafe, contentType), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(await post('{"name": "Rex", "categoryId": 1}', contentType), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  test('nothing refused was stored; a U+FFFD the client sent is kept', async () => {
    const sent = await post('{"name": "Caf\\ufffd \u00e9", "categoryId": 1}', 'application/json; charset=UTF-8');
    expect(sent.status).toBe(201);
    expect((sent.body as Animal).name).toBe('Caf\ufffd \u00e9');
    const all = (await allPages(server, '/pets?limit=100')).flatMap((page) => page.body);
    expect(all.map((a) => a.name)).toEqual(['Caf\ufffd \u00e9']);
  });
});

describe('the access log records only answers a client got', () => {
  const accessLines = () =>
    server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{"accessLog"'))
      .map((line) => (JSON.parse(line) as { accessLog: { requestId: string; status: number } }).accessLog);

  test('a client that leaves mid-body and a malformed chunk size leave no 5xx line', async () => {
    const before = accessLines().length;
    const auth = `Authorization: Bearer ${server.key}\r\nContent-Type: application/json\r\n`;
    // Promises 100 bytes, sends 10, leaves.
    await raw(`POST ${path('/pets')} HTTP/1.1\r\n${host()}${auth}Content-Length: 100\r\n\r\n{"name": "`, {
      endAfterMs: 100,
    });
    // A chunk size that is not hexadecimal: Node's parser answers 400 itself.
    const garbled = await raw(
      `POST ${path('/pets')} HTTP/1.1\r\n${host()}${auth}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    );
    const refusal = parseResponse(garbled);
    expect(refusal.status).toBe(400);
    expect(refusal.body).toMatchObject({
      code: 'BAD_REQUEST',
      status: 400,
      requestId: refusal.headers.get('x-amzn-requestid'),
    });
    // A request that is answered, so that the lines before it are written.
    const answered = await postPet(server, { name: 'after', categoryId: 2 });
    expect(answered.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const lines = accessLines().slice(before);
    expect(lines.filter((line) => line.status >= 500)).toEqual([]);
    expect(lines.map((line) => line.requestId)).toContain(answered.headers.get('x-amzn-requestid'));
  });
});

describe('an HTTP/1.1 request without Host', () => {
  // Node refuses it with a bare 400 and no body unless told otherwise; API Gateway's
  // edge needs no Host from us: the gateway answers it like any other request.
  test('is answered by the gateway with the Error body (here: 401, no key)', async () => {
    const reply = parseResponse(await raw(`GET ${path('/pets')} HTTP/1.1\r\nConnection: close\r\n\r\n`));
    expect(reply.status).toBe(401);
    expect(reply.body).toMatchObject({
      code: 'UNAUTHORIZED',
      status: 401,
      requestId: reply.headers.get('x-amzn-requestid'),
    });
  });

  test('with a key, is served', async () => {
    const auth = `Authorization: Bearer ${server.key}\r\n`;
    const reply = parseResponse(await raw(`GET ${path('/pets?limit=1')} HTTP/1.1\r\n${auth}Connection: close\r\n\r\n`));
    expect(reply.status).toBe(200);
  });
});
