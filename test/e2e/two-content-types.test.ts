// Two Content-Type headers on the local stage: 400 naming the header, and nothing created, as
// deployed (test/integration/two-content-types.test.ts): Node keeps the first of the two and the
// function read the last, so the gateway and the function disagreed. Raw sockets: fetch joins
// the two values into one.
import { connect } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { LocalServer } from '../../tools/harness/local-server.ts';
import { allPages, disposeServer, startServer } from './support.ts';

let server: LocalServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => disposeServer(server));

const post = (contentTypes: string[], body: string): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const { hostname, port, host, pathname } = new URL(server.baseUrl);
    const socket = connect(Number(port), hostname, () =>
      socket.write(
        `POST ${pathname}/pets HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${server.key}\r\n` +
          contentTypes.map((type) => `Content-Type: ${type}\r\n`).join('') +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      ),
    );
    let answer = '';
    socket.on('data', (data) => (answer += String(data)));
    socket.on('error', reject);
    socket.on('end', () => {
      const [head = '', text = ''] = answer.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), body: text });
    });
  });

test.each([
  [['text/plain', 'application/json']],
  [['application/json', 'text/plain']],
  [['application/json', 'application/json; charset=utf-8']],
])('Content-Type %j: 400 naming Content-Type, nothing created', async (types) => {
  const name = `Two types ${types.join(' ')}`;
  const answer = await post(types, JSON.stringify({ name, categoryId: 1 }));
  expect(answer.status, answer.body).toBe(400);
  expect(JSON.parse(answer.body)).toMatchObject({
    code: 'BAD_REQUEST',
    status: 400,
    details: [{ field: 'Content-Type', message: expect.stringMatching(/once/) }],
  });
  const pages = await allPages(server, '/pets?limit=100');
  expect(pages.flatMap((page) => page.body.map((animal) => animal.name))).not.toContain(name);
});

test('one Content-Type header: created', async () => {
  expect((await post(['application/json'], '{"name": "One type", "categoryId": 1}')).status).toBe(201);
});
