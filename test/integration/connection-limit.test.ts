// The local server's listeners keep their connections within the open-files limit
// (infra/local/connection-limit.ts): past their share, a new connection closes the one idle the
// longest, never one with a request in flight; when every one has a request in flight, one whose
// request waits for its body, else itself.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, expect, test, vi } from 'vitest';
import { connectionBudget, limitConnections, openFilesLimit } from '../../infra/local/connection-limit.ts';
import { STAMP, unstamped } from '../support/timestamps.ts';

let server: Server;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
  vi.restoreAllMocks();
});

/** What the server has seen so far: the tests wait on it, not on a guess of how long it takes. */
const seen = { connections: 0, requests: 0 };

/**
 * A server keeping `max` connections whose requests to /slow are answered only when `release` is
 * called; a request to /upload/{key} stands for one of `key` that waits for its body.
 */
const serve = async (max: number, name = 'test') => {
  const held: Array<() => void> = [];
  const uploads = new Map<Socket, string>();
  seen.connections = 0;
  seen.requests = 0;
  server = createServer((req, res) => {
    seen.requests++;
    const upload = /^\/upload\/(\w+)$/.exec(req.url ?? '')?.[1];
    if (upload) uploads.set(req.socket, upload);
    else if (req.url === '/slow') held.push(() => res.end('slow'));
    else res.end('fast');
  });
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  limitConnections(server, { max, name, awaitingBody: (socket) => uploads.get(socket) });
  server.on('connection', () => seen.connections++); // after the limit's own listener
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const release = () => {
    for (const answer of held.splice(0)) answer();
  };
  return { port, release };
};

/**
 * A client connection that records whether the server closed it, once the server has taken it
 * (so that connections are older in the order they were opened, on a loaded machine too).
 */
const open = async (port: number) => {
  const connections = seen.connections;
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  const client = { socket, closed: false, received: '' };
  socket.on('data', (chunk) => (client.received += chunk));
  socket.on('close', () => (client.closed = true));
  await once(socket, 'connect');
  await vi.waitUntil(() => seen.connections > connections, { timeout: 5_000, interval: 5 });
  await settle(); // what the server closed on its account reaches the client
  return client;
};
const settle = () => new Promise((r) => setTimeout(r, 50));
/** Sends requests and waits until the server has read every one of them. */
const send = async (...requests: Array<[Socket, string]>) => {
  const expected = seen.requests + requests.length;
  for (const [socket, path] of requests) socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
  await vi.waitUntil(() => seen.requests >= expected, { timeout: 5_000, interval: 5 });
};

test('past the limit, the connection idle the longest is closed: a silent one before one answered since', async () => {
  const { port } = await serve(3);
  const [first, second, third] = [await open(port), await open(port), await open(port)];
  await send([first.socket, '/fast']); // answered: now the most recently active
  await vi.waitUntil(() => first.received !== '', { timeout: 5_000 });
  const fourth = await open(port);
  expect([first.closed, second.closed, third.closed, fourth.closed]).toEqual([false, true, false, false]);
  const fifth = await open(port);
  expect([first.closed, third.closed, fifth.closed]).toEqual([false, true, false]);
  expect(first.received).toMatch(/^HTTP\/1\.1 200/);
});

test('a connection with a request in flight is never closed; when all have one, the newcomer is', async () => {
  const { port, release } = await serve(2, 'busy');
  const [busy, idle] = [await open(port), await open(port)];
  await send([busy.socket, '/slow']);
  const third = await open(port); // closes idle, not busy
  expect([busy.closed, idle.closed, third.closed]).toEqual([false, true, false]);
  await send([third.socket, '/slow']);
  const fourth = await open(port); // both have a request in flight
  expect([busy.closed, third.closed, fourth.closed]).toEqual([false, false, true]);
  release();
  await vi.waitUntil(() => busy.received.endsWith('slow') && third.received.endsWith('slow'), { timeout: 5_000 });
  const warnings = () =>
    vi.mocked(console.warn).mock.calls.filter(([line]) => unstamped(String(line)).startsWith('busy: '));
  expect(warnings()).toEqual([]); // once a second at most, with the counts
  await new Promise((r) => setTimeout(r, 1100));
  expect(warnings()).toEqual([
    [
      expect.stringMatching(
        new RegExp(`^${STAMP}busy: closed 1 idle connection\\(s\\) and refused 1 new one\\(s\\) to keep within 2 open`),
      ),
    ],
  ]);
});

test('when all have a request in flight, an upload waiting for its body goes, of the key with the most, before the newcomer', async () => {
  const { port, release } = await serve(4, 'uploads');
  const [slow, a1, b1, b2] = [await open(port), await open(port), await open(port), await open(port)];
  await send([slow.socket, '/slow'], [a1.socket, '/upload/a'], [b1.socket, '/upload/b'], [b2.socket, '/upload/b']);
  const newcomer = await open(port); // key b waits on two: its oldest goes
  expect([slow.closed, a1.closed, b1.closed, b2.closed, newcomer.closed]).toEqual([false, false, true, false, false]);
  await send([newcomer.socket, '/slow']);
  const next = await open(port); // a and b one each: the oldest of them, a's
  expect([slow.closed, a1.closed, b2.closed, newcomer.closed, next.closed]).toEqual([false, true, false, false, false]);
  release();
  await new Promise((r) => setTimeout(r, 1100));
  const warnings = vi
    .mocked(console.warn)
    .mock.calls.filter(([line]) => unstamped(String(line)).startsWith('uploads: '));
  expect(warnings).toEqual([
    [
      expect.stringMatching(
        new RegExp(
          `^${STAMP}uploads: closed 0 idle connection\\(s\\), cut 2 upload\\(s\\) waiting for their body to keep`,
        ),
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
