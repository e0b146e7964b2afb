// The local server's listeners keep their connections within the open-files limit
// (infra/local/connection-limit.ts): past their share, a new connection closes the one idle the
// longest, never one with a request in flight; when every one has a request in flight, one whose
// request waits for its body, else itself.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, expect, test, vi } from 'vitest';
import { connectionBudget, limitConnections, openFilesLimit } from '../../infra/local/connection-limit.ts';

let server: Server;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
  vi.restoreAllMocks();
});

/**
 * A server keeping `max` connections whose requests to /slow are answered only when `release` is
 * called; a request to /upload/{key} stands for one of `key` that waits for its body.
 */
const serve = async (max: number, name = 'test') => {
  const held: Array<() => void> = [];
  const uploads = new Map<Socket, string>();
  server = createServer((req, res) => {
    const upload = /^\/upload\/(\w+)$/.exec(req.url ?? '')?.[1];
    if (upload) uploads.set(req.socket, upload);
    else if (req.url === '/slow') held.push(() => res.end('slow'));
    else res.end('fast');
  });
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  limitConnections(server, { max, name, awaitingBody: (socket) => uploads.get(socket) });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const release = () => {
    for (const answer of held.splice(0)) answer();
  };
  return { port, release };
};

/** A client connection that records whether the server closed it. */
const open = async (port: number) => {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  const client = { socket, closed: false, received: '' };
  socket.on('data', (chunk) => (client.received += chunk));
  socket.on('close', () => (client.closed = true));
  await once(socket, 'connect');
  await settle();
  return client;
};
const settle = () => new Promise((r) => setTimeout(r, 50));
const send = (socket: Socket, path: string) => socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);

test('past the limit, the connection idle the longest is closed: a silent one before one answered since', async () => {
  const { port } = await serve(3);
  const [first, second, third] = [await open(port), await open(port), await open(port)];
  send(first.socket, '/fast'); // answered: now the most recently active
  await settle();
  const fourth = await open(port);
  expect([first.closed, second.closed, third.closed, fourth.closed]).toEqual([false, true, false, false]);
  const fifth = await open(port);
  expect([first.closed, third.closed, fifth.closed]).toEqual([false, true, false]);
  expect(first.received).toMatch(/^HTTP\/1\.1 200/);
});

test('a connection with a request in flight is never closed; when all have one, the newcomer is', async () => {
  const { port, release } = await serve(2, 'busy');
  const [busy, idle] = [await open(port), await open(port)];
  send(busy.socket, '/slow');
  await settle();
  const third = await open(port); // closes idle, not busy
  expect([busy.closed, idle.closed, third.closed]).toEqual([false, true, false]);
  send(third.socket, '/slow');
  await settle();
  const fourth = await open(port); // both have a request in flight
  expect([busy.closed, third.closed, fourth.closed]).toEqual([false, false, true]);
  release();
  await settle();
  expect(busy.received).toMatch(/slow$/);
  expect(third.received).toMatch(/slow$/);
  const warnings = () => vi.mocked(console.warn).mock.calls.filter(([line]) => String(line).startsWith('busy: '));
  expect(warnings()).toEqual([]); // once a second at most, with the counts
  await new Promise((r) => setTimeout(r, 1100));
  expect(warnings()).toEqual([
    [expect.stringMatching(/^busy: closed 1 idle connection\(s\) and refused 1 new one\(s\) to keep within 2 open/)],
  ]);
});

test('when all have a request in flight, an upload waiting for its body goes, of the key with the most, before the newcomer', async () => {
  const { port, release } = await serve(4, 'uploads');
  const [slow, a1, b1, b2] = [await open(port), await open(port), await open(port), await open(port)];
  send(slow.socket, '/slow');
  send(a1.socket, '/upload/a');
  send(b1.socket, '/upload/b');
  send(b2.socket, '/upload/b');
  await settle();
  const newcomer = await open(port); // key b waits on two: its oldest goes
  expect([slow.closed, a1.closed, b1.closed, b2.closed, newcomer.closed]).toEqual([false, false, true, false, false]);
  send(newcomer.socket, '/slow');
  await settle();
  const next = await open(port); // a and b one each: the oldest of them, a's
  expect([slow.closed, a1.closed, b2.closed, newcomer.closed, next.closed]).toEqual([false, true, false, false, false]);
  release();
  await new Promise((r) => setTimeout(r, 1100));
  const warnings = vi.mocked(console.warn).mock.calls.filter(([line]) => String(line).startsWith('uploads: '));
  expect(warnings).toEqual([
    [
      expect.stringMatching(
        /^uploads: closed 0 idle connection\(s\), cut 2 upload\(s\) waiting for their body to keep/,
      ),
    ],
  ]);
});

test('the limit comes from the soft open-files limit, less what the server keeps for itself', () => {
  const limits = [
    'Limit                     Soft Limit           Hard Limit           Units     ',
    'Max open files            20000                20000                files     ',
  ].join('\n');
  expect(openFilesLimit(limits)).toBe(20_000);
  expect(openFilesLimit('Max open files            unlimited            unlimited            files')).toBeUndefined();
  expect(openFilesLimit('')).toBeUndefined();
  expect(connectionBudget(20_000)).toEqual({ api: 16_604, dynamodb: 2_372 });
  expect(connectionBudget(512)).toEqual({ api: 224, dynamodb: 32 }); // half kept for the server
  const { api, dynamodb } = connectionBudget(1024);
  expect(api + dynamodb).toBe(512);
});
