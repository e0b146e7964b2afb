// One key cannot starve the others of the budget for request bodies (docs/api.md, "Limits per
// key": other keys are not slowed by it). An attack found it could: one write key opened ~2,050
// POST /v1/pets that declare a body and never send it; each held its share of the budget of all
// bodies being read (request-body.ts) from before its first byte, and another key's POST then got
// no answer until they closed. Against `npm start`'s server on its own defaults, over raw sockets
// (fetch cannot send headers and then nothing).
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { BODIES_IN_FLIGHT_BYTES } from '../../infra/local/body-budget.ts';
import { MAX_BODY_BYTES } from '../../shared/api/routes.ts';
import type { LocalServer } from '../../tools/harness/local-server.ts';
import { bearer, call, disposeServer, issueKey, postPet, startServer } from './support.ts';

let server: LocalServer;
let victim: { key: string };
const stalled: Socket[] = [];

beforeAll(async () => {
  // The attacker's ~2,050 requests all pass its own limits: only the body budget is under test.
  server = await startServer({ PETSTORE_KEY_BURST: '10000' });
  victim = await issueKey(server.dataDir, 'e2e body budget victim');
});
afterAll(async () => {
  for (const socket of stalled) socket.destroy();
  await disposeServer(server);
});

let continued = 0;

/**
 * Opens a connection, sends `head` and nothing after it; resolves once it is written. Each head
 * expects 100-continue: the server sends it as the request takes its share of the budget and
 * starts reading, which tells the test when the uploads hold what they will.
 */
const openStalled = (head: string): Promise<void> =>
  new Promise((resolve) => {
    const { hostname, port } = new URL(server.baseUrl);
    const socket = connect(Number(port), hostname, () => socket.write(head, () => resolve()));
    socket.once('data', (data) => (String(data).startsWith('HTTP/1.1 100 ') ? continued++ : undefined));
    socket.on('error', () => resolve());
    stalled.push(socket);
  });

/** A POST /v1/pets of the server's key that declares a body (chunked, or `length` bytes) and sends none of it. */
const stalledUpload = (length?: number) => {
  const { pathname, host } = new URL(server.baseUrl);
  const framing = length === undefined ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`;
  return (
    `POST ${pathname}/pets HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${server.key}\r\n` +
    `Content-Type: application/json\r\nExpect: 100-continue\r\n${framing}\r\n\r\n`
  );
};

/** Resolves once no upload has been let in for `quietMs`: the server has taken every one it will. */
const settled = async (quietMs = 500) => {
  for (let seen = -1; seen !== continued; ) {
    seen = continued;
    await new Promise((resolve) => setTimeout(resolve, quietMs));
  }
};

/** `reply`'s status, or 'no answer' when it does not come within `ms` (before the fix: not for 300 s). */
const within = async (ms: number, reply: Promise<{ status: number }>): Promise<{ status: number | string }> => {
  const timeout = new Promise<{ status: string }>((resolve) =>
    setTimeout(() => resolve({ status: `no answer within ${ms} ms` }), ms).unref(),
  );
  return Promise.race([reply, timeout]);
};

test('uploads one key stalls do not hold up another key’s POST', async () => {
  // Each key's answer from the authorizer cached first, as a busy stage has it.
  expect((await call(server, '/pets?limit=1')).status).toBe(200);
  expect((await call(server, '/pets?limit=1', { authorization: bearer(victim.key) })).status).toBe(200);

  // The whole budget, and more: chunked uploads (each may be 16 KiB + 1), the few bytes they leave
  // taken by one upload that declares exactly those, then chunked uploads past the budget.
  const largest = MAX_BODY_BYTES + 1;
  const chunked = Math.floor(BODIES_IN_FLIGHT_BYTES / largest);
  const heads = [
    ...Array.from({ length: chunked }, () => stalledUpload()),
    stalledUpload(BODIES_IN_FLIGHT_BYTES - chunked * largest),
    ...Array.from({ length: 16 }, () => stalledUpload()),
  ];
  for (let opened = 0; opened < heads.length; opened += 256) {
    await Promise.all(heads.slice(opened, opened + 256).map(openStalled));
  }
  await settled();
  expect(continued).toBeGreaterThan(0);

  const created = await within(
    3_000,
    postPet(server, { name: 'Not starved', categoryId: 1 }, { authorization: bearer(victim.key) }),
  );
  expect(created.status).toBe(201);

  // Once the stalled uploads are gone (the client left), the attacker's key is served again too:
  // the requests of its own that waited and left took no one's turn.
  for (const socket of stalled.splice(0)) socket.destroy();
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect((await postPet(server, { name: 'After the stall', categoryId: 1 })).status).toBe(201);
}, 30_000);
