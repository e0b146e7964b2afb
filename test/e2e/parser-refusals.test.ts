// What Node's HTTP parser refuses before the gateway sees a request (methods it does not know,
// CONNECT, framing it cannot trust, headers that never finish) is still an answered request: it
// leaves the access log line on-call reads, with the fields a 404 before the authorizer has, the
// requestId its answer carries, and never a header's value. Raw sockets: fetch would refuse or repair them.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { LocalServer } from '../../tools/harness/local-server.ts';
import { disposeServer, startServer } from './support.ts';

type Line = Record<string, string | number | null>;

let server: LocalServer;
beforeAll(async () => {
  server = await startServer({ LOG_LEVEL: 'INFO' });
});
afterAll(() => disposeServer(server));

const address = () => new URL(server.baseUrl);

/** Sends `request` on a new connection; resolves to what the server wrote, and when it closed. */
const raw = (request: string, { endAfterMs = 2000 } = {}): Promise<{ text: string; ms: number }> =>
  new Promise((resolve, reject) => {
    const { hostname, port } = address();
    const started = performance.now();
    const socket = connect(Number(port), hostname);
    let text = '';
    socket.on('data', (chunk) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve({ text, ms: performance.now() - started }));
    socket.write(request);
    setTimeout(() => socket.end(), endAfterMs).unref();
  });

interface Answer {
  status: number;
  requestId: string | undefined;
  body: { code: string; message: string; status: number; requestId: string; details?: unknown };
}

/** Every HTTP response in `text`, in order. */
const answersIn = (text: string): Answer[] =>
  text
    .split(/(?=HTTP\/1\.1 \d{3} )/)
    .filter(Boolean)
    .map((response) => {
      const [head = '', body = ''] = response.split('\r\n\r\n');
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
      return {
        status: Number(head.split(' ')[1]),
        requestId: /\r\nx-amzn-requestid: (\S+)/i.exec(head)?.[1],
        body: JSON.parse(body.slice(0, length)),
      };
    });

const accessLines = (): Line[] =>
  server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{"accessLog"'))
    .map((line) => (JSON.parse(line) as { accessLog: Line }).accessLog);

/** The access log lines of `requestId`, once at least one is written (stdout is written by turns). */
const linesOf = async (requestId: string | undefined): Promise<Line[]> => {
  for (let waited = 0; waited < 2000; waited += 50) {
    const found = accessLines().filter((line) => line.requestId === requestId);
    if (found.length > 0) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return [];
};

/** One answer, its Error body naming its requestId, and exactly one access log line for it, which is returned. */
const answeredAndLogged = async (text: string, status: number, code: string): Promise<Line> => {
  const [answer] = answersIn(text);
  expect(answer?.status, text).toBe(status);
  expect(answer!.body).toMatchObject({ code, status, requestId: answer!.requestId });
  const lines = await linesOf(answer!.requestId);
  expect(lines, `access log line of ${answer!.requestId}`).toHaveLength(1);
  const line = lines[0]!;
  expect(line.status).toBe(status);
  expect(line.responseLength).toBe(Buffer.byteLength(JSON.stringify(answer!.body)));
  expect(line.keyId).toBeNull();
  // Its time, as every other line's: CLF and the epoch, of this very moment.
  expect(line.requestTime).toMatch(/^\d\d\/\w{3}\/\d{4}:\d\d:\d\d:\d\d \+0000$/);
  expect(Date.now() - Number(line.requestTimeEpoch)).toBeLessThan(15_000);
  // Never a header's value: the key it sent is in no access log line.
  expect(JSON.stringify(accessLines())).not.toContain(server.key);
  return line;
};

const auth = () => `Host: ${address().host}\r\nAuthorization: Bearer ${server.key}\r\n`;

test("a 404 before the authorizer, as the gateway logs it (PATCH /v1/pets): the line refusals' lines are held to", async () => {
  const { text } = await raw(`PATCH /v1/pets HTTP/1.1\r\n${auth()}Connection: close\r\n\r\n`);
  const line = await answeredAndLogged(text, 404, 'NOT_FOUND');
  expect(line).toMatchObject({
    httpMethod: 'PATCH',
    path: '/v1/pets',
    protocol: 'HTTP/1.1',
    resourcePath: null,
    errorResponseType: 'MISSING_AUTHENTICATION_TOKEN',
    errorMessage: 'Missing Authentication Token',
  });
});

describe('a method Node does not know: 404, one access log line naming it', () => {
  test.each([
    ['FOO', '/v1/pets?limit=1', '/v1/pets'],
    ['get', '/v1/pets', '/v1/pets'],
    ['BREW', 'http://localhost/v1/pets', '/v1/pets'],
    ['CONNECT', '127.0.0.1:1', '127.0.0.1:1'],
  ])('%s %s', async (method, target, path) => {
    const { text } = await raw(`${method} ${target} HTTP/1.1\r\n${auth()}Connection: close\r\n\r\n`);
    const line = await answeredAndLogged(text, 404, 'NOT_FOUND');
    expect(line).toMatchObject({
      httpMethod: method,
      path,
      protocol: 'HTTP/1.1',
      resourcePath: null,
      errorResponseType: 'MISSING_AUTHENTICATION_TOKEN',
      errorMessage: 'Missing Authentication Token',
    });
  });
});

describe('framing Node cannot trust: 400, one access log line naming the request', () => {
  test.each([
    ['two Content-Lengths', 'POST', 'Content-Length: 5\r\nContent-Length: 6\r\n'],
    ['Content-Length and chunked', 'POST', 'Content-Length: 5\r\nTransfer-Encoding: chunked\r\n'],
    ['a folded header', 'GET', 'X-Folded: a\r\n b\r\n'],
    ['a space before the colon', 'GET', 'Content-Type : application/json\r\n'],
  ])('%s', async (_, method, headers) => {
    const { text } = await raw(`${method} /v1/pets HTTP/1.1\r\n${auth()}${headers}\r\n{}`);
    const line = await answeredAndLogged(text, 400, 'BAD_REQUEST');
    expect(line).toMatchObject({
      httpMethod: method,
      path: '/v1/pets',
      protocol: 'HTTP/1.1',
      errorResponseType: 'DEFAULT_4XX',
      errorMessage: 'Malformed HTTP request',
    });
  });

  test('a malformed chunk size in a body: the line names the request whose body it was', async () => {
    const { text } = await raw(
      `POST /v1/pets HTTP/1.1\r\n${auth()}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    );
    const line = await answeredAndLogged(text, 400, 'BAD_REQUEST');
    expect(line).toMatchObject({ httpMethod: 'POST', path: '/v1/pets', errorMessage: 'Malformed HTTP request' });
  });
});

describe('a declared body over 10 MiB: 413 before anything else, whatever the method', () => {
  test.each([
    ['PATCH', '/v1/pets'],
    ['FOO', '/v1/pets'],
    ['CONNECT', '127.0.0.1:1'],
  ])('%s', async (method, path) => {
    const { text } = await raw(`${method} ${path} HTTP/1.1\r\n${auth()}Content-Length: 20000000\r\n\r\n`);
    const line = await answeredAndLogged(text, 413, 'PAYLOAD_TOO_LARGE');
    expect(line).toMatchObject({ httpMethod: method, path, errorResponseType: 'REQUEST_TOO_LARGE' });
  });
});

test('pipelined: the request before a refused one is answered first, and each has its line', async () => {
  const { text } = await raw(
    `GET /v1/pets?limit=1 HTTP/1.1\r\n${auth()}\r\nFOO /v1/pets HTTP/1.1\r\n${auth()}Connection: close\r\n\r\n`,
  );
  const answers = answersIn(text);
  expect(answers.map((a) => a.status)).toEqual([200, 404]);
  const [served, refused] = await Promise.all(answers.map((a) => linesOf(a.requestId)));
  expect(served).toMatchObject([{ httpMethod: 'GET', status: 200 }]);
  expect(refused).toMatchObject([{ httpMethod: 'FOO', path: '/v1/pets', status: 404 }]);
});

// At `npm start`'s own 10 s (the body's): Node's default refused them after 60 to 90 s.
test('headers that do not arrive within 10 s: the body timeout’s 400, and one line each', async () => {
  const stalled = [
    `GET /v1/pets HTTP/1.1\r\n${auth()}`, // the blank line never comes
    'GET /v1/pe', // nor the end of the request line
  ];
  const replies = await Promise.all(stalled.map((request) => raw(request, { endAfterMs: 20_000 })));
  for (const { text, ms } of replies) {
    expect(ms).toBeGreaterThanOrEqual(9_900);
    expect(ms).toBeLessThan(12_500);
    const line = await answeredAndLogged(text, 400, 'BAD_REQUEST');
    const [answer] = answersIn(text);
    expect(answer!.body).toMatchObject({
      message: 'request headers were not received within 10 s',
      details: [{ field: 'headers', message: 'were not received within 10 s' }],
    });
    expect(text).toMatch(/\r\nConnection: close\r\n/i);
    expect(line).toMatchObject({ errorResponseType: 'DEFAULT_4XX', errorMessage: answer!.body.message });
  }
}, 25_000);
