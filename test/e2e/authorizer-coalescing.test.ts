// A new key's first requests, all at once, are one authorizer lookup, not one each. An outside
// attack sent 1,300 simultaneous first requests of a new key, well under its burst (2,000): each
// missed the authorizer cache and queued its own call of the authorizer function, whose queue
// overflowed, and 284 of them were refused 429 though no limit of the key or the stage was
// reached (the contract: a request is refused only by the throttle). Against `npm start`'s server
// on its defaults. A read key's POST /v1/pets is refused 403 by the authorizer's policy before
// any function runs, so the authorizer is the only function these requests reach.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { LocalServer } from '../../tools/harness/local-server.ts';
import { disposeServer, keyTool, startServer } from './support.ts';

const SIMULTANEOUS = 1_300;

let server: LocalServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => disposeServer(server));

/** `count` open connections, each connected before any request is sent. */
const connections = (count: number): Promise<Socket[]> => {
  const { hostname, port } = new URL(server.baseUrl);
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect(Number(port), hostname, () => resolve(socket));
          socket.on('error', reject);
        }),
    ),
  );
};

/** Sends `head` on `socket` at once; resolves to the status of its answer. */
const send = (socket: Socket, head: string): Promise<number> =>
  new Promise((resolve) => {
    let answer = '';
    socket.on('data', (data) => {
      answer += String(data);
      if (answer.includes('\r\n')) resolve(Number(answer.split(' ')[1]));
    });
    socket.on('close', () => resolve(Number(answer.split(' ')[1]) || 0));
    socket.write(head);
  });

test('1,300 simultaneous first requests of a new key are all answered by its policy, none throttled', async () => {
  const { code, stdout, stderr } = await keyTool(server.dataDir, 'create', '--label', 'coalesced', '--scope', 'read');
  expect(code, stderr).toBe(0);
  const key = /\b(pet_[0-9A-Za-z]+)/.exec(stdout)![1]!;
  const { pathname, host } = new URL(server.baseUrl);
  const head =
    `POST ${pathname}/pets HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${key}\r\n` +
    'Content-Type: application/json\r\nContent-Length: 0\r\nConnection: close\r\n\r\n';
  // Every connection open first, then every request written in one go: they arrive together.
  const sockets = await connections(SIMULTANEOUS);
  const statuses = await Promise.all(sockets.map((socket) => send(socket, head)));
  for (const socket of sockets) socket.destroy();
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  expect(counts).toEqual({ 403: SIMULTANEOUS });
}, 120_000);
