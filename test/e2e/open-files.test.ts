// Connections that never send a request, as many as the server's process may open files: until
// Node's headers timeout closes them (60 s, checked every 30) they held every descriptor, so no
// client could connect, and the first thing that opened a file then (the idle-memory check reads
// /proc) threw EMFILE and took the server down. The server keeps its client connections under
// its open-files limit (PETSTORE_MAX_CONNECTIONS, infra/local/connection-limit.ts): a new
// connection past it closes the connection idle the longest, never one with a request in flight.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { runningDynamoDB } from '../../infra/local/embedded-dynamodb.ts';
import { type LocalServer, startLocalServer } from '../../tools/harness/local-server.ts';
import { call, disposeServer, postPet } from './support.ts';

/** Few enough that the test opens more connections than the server may, in a second. */
const OPEN_FILES = 512;
let server: LocalServer;
beforeAll(async () => {
  server = await startLocalServer(
    { LOG_LEVEL: 'WARN', PETSTORE_IDLE_MEMORY_SECONDS: '1' },
    { launcher: ['prlimit', `--nofile=${OPEN_FILES}:${OPEN_FILES}`] },
  );
});
afterAll(() => disposeServer(server));

/** `count` connections to `url`'s port that send nothing; resolves once each is open or refused. */
const silentConnections = async (count: number, url = server.baseUrl) => {
  const { hostname, port } = new URL(url);
  const sockets: Socket[] = [];
  let closedByServer = 0;
  await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<void>((opened) => {
          const socket = connect(Number(port), hostname);
          socket.once('connect', () => opened());
          socket.once('error', () => opened());
          socket.once('close', () => (closedByServer += 1));
          sockets.push(socket);
        }),
    ),
  );
  return { sockets, closed: () => closedByServer };
};

test('connections that never send a request do not lock clients out or bring the server down', async () => {
  expect((await postPet(server, { name: 'Before', categoryId: 1 })).status).toBe(201); // memory grew, served once
  const silent = await silentConnections(OPEN_FILES * 2);
  await new Promise((r) => setTimeout(r, 2500)); // past the idle-memory check (1 s idle)
  try {
    expect(server.process.exitCode).toBeNull();
    const created = await postPet(server, { name: 'During', categoryId: 1 });
    expect(created.status).toBe(201);
    const listed = await call(server, '/pets?limit=100');
    expect(listed.status).toBe(200);
    expect((listed.body as { name: string }[]).map((pet) => pet.name).sort()).toEqual(['Before', 'During']);
    // Only idle connections were closed, and the server said so once.
    expect(silent.closed()).toBeGreaterThanOrEqual(OPEN_FILES);
    expect(server.output()).toMatch(/closed \d+ idle connection/);
  } finally {
    for (const socket of silent.sockets) socket.destroy();
  }
}, 30_000);

test('nor on the embedded DynamoDB port, which any local user can find', async () => {
  const silent = await silentConnections(OPEN_FILES * 2, runningDynamoDB(server.dataDir)!);
  try {
    await vi.waitFor(() => expect(silent.closed()).toBeGreaterThanOrEqual(OPEN_FILES), { timeout: 5000 });
    // At once: new connections to the API, and the functions' to the embedded DynamoDB (their
    // pooled ones may have been among those closed: the SDK opens others).
    const created = await Promise.all(
      Array.from({ length: 12 }, (_, i) => postPet(server, { name: `After ${i}`, categoryId: 2 })),
    );
    expect(created.map((reply) => reply.status)).toEqual(Array(12).fill(201));
    expect((await call(server, '/pets?limit=100')).body).toHaveLength(14);
    // Said once a second at most, a second after the first closing: this test may be done sooner.
    await vi.waitFor(() => expect(server.output()).toMatch(/embedded DynamoDB: closed \d+ idle connection/), {
      timeout: 3000,
    });
  } finally {
    for (const socket of silent.sockets) socket.destroy();
  }
}, 30_000);
