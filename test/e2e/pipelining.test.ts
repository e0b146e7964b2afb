// One connection's pipelined requests are answered in the order they were sent, errors
// included: a request Node's parser refuses (a lower-case method, a malformed or oversized
// header) after a valid one gets its error only after the valid one's answer, then the
// connection closes. Raw sockets: fetch never pipelines.
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { LocalServer } from '../../tools/harness/local-server.ts';
import { type Animal, allPages, disposeServer, startServer } from './support.ts';

let server: LocalServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => disposeServer(server));

/** Writes `bytes` in one write; resolves to everything the server wrote before it closed the connection. */
const exchange = (bytes: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const { hostname, port } = new URL(server.baseUrl);
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => (received += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    socket.write(bytes);
    setTimeout(() => socket.destroy(), 10_000).unref();
  });

/** The status codes of the responses in `text`, in order. */
const statuses = (text: string): number[] => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));

const post = (name: string) => {
  const body = JSON.stringify({ name, categoryId: 3 });
  const { host, pathname } = new URL(server.baseUrl);
  return (
    `POST ${pathname}/pets HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${server.key}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
};

describe('a valid POST, then in the same write a request refused before it runs', () => {
  const refused: Array<[string, () => string, number]> = [
    ['a lower-case method', () => `get ${new URL(server.baseUrl).pathname}/pets HTTP/1.1\r\nHost: x\r\n\r\n`, 404],
    ['a malformed header', () => 'GET /v1/pets HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n', 400],
    ['an oversized header', () => `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 400],
    ['CONNECT', () => 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 404],
    [
      'a malformed chunk in its body',
      () => 'POST /v1/pets HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
      400,
    ],
  ];
  test.each(refused)('%s: the 201 comes first, then the error, then the close', async (_, second, status) => {
    const name = `Pipelined ${randomUUID()}`;
    const answer = await exchange(`${post(name)}${second()}`);
    expect(statuses(answer), answer.slice(0, 2000)).toEqual([201, status]);
    const created = (await allPages(server, '/pets?limit=100')).flatMap((page) => page.body);
    expect(created.filter((animal: Animal) => animal.name === name)).toHaveLength(1);
  });

  test('several valid requests first: all answered, in order, before the error', async () => {
    const names = Array.from({ length: 3 }, () => `Pipelined ${randomUUID()}`);
    const { pathname } = new URL(server.baseUrl);
    const answer = await exchange(`${names.map(post).join('')}get ${pathname}/pets HTTP/1.1\r\n\r\n`);
    expect(statuses(answer)).toEqual([201, 201, 201, 404]);
    const ids = [...answer.matchAll(/"name":"(Pipelined [^"]+)"/g)].map((m) => m[1]);
    expect(ids).toEqual(names);
  });
});
