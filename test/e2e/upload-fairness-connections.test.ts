// Stalled uploads cannot lock another key out by the number of their connections either. The
// server keeps its connections under its open-files limit (connection-limit.ts): past it, a new
// connection closed an idle one, or, when every connection had a request in flight, itself. A
// stalled upload is in flight for as long as its body may take (10 s), so keys that held as many
// of them as the server may keep connections refused every other client's connection, over and over
// (each stalled upload reconnecting after its 400). Against a server whose process may open 1,024
// files (prlimit, as test/e2e/open-files.test.ts does): 448 API connections.
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { connectionBudget } from '../../infra/local/connection-limit.ts';
import { MAX_BODY_BYTES } from '../../shared/api/routes.ts';
import { type LocalServer, startLocalServer } from '../../tools/harness/local-server.ts';
import { bearer, call, disposeServer, inBatches, keyTool } from './support.ts';

const OPEN_FILES = 1024;
const STALLING_KEYS = 8;
/** Half as many again as the server may keep, all with a request in flight. */
const STALLED = Math.ceil((connectionBudget(OPEN_FILES).api * 1.5) / STALLING_KEYS) * STALLING_KEYS;
const WELL_BEHAVED_MS = 1_000;

let server: LocalServer;
let victim: string;
const attackers: string[] = [];
const sockets: Socket[] = [];

const createKey = async (label: string) => {
  const { code, stdout, stderr } = await keyTool(server.dataDir, 'create', '--label', label);
  expect(code, stderr).toBe(0);
  return /\b(pet_[0-9A-Za-z]+)/.exec(stdout)![1]!;
};

beforeAll(async () => {
  server = await startLocalServer(
    { LOG_LEVEL: 'WARN', PETSTORE_KEY_BURST: '10000' },
    { launcher: ['prlimit', `--nofile=${OPEN_FILES}:${OPEN_FILES}`] },
  );
  victim = await createKey('e2e connections victim');
  attackers.push(
    ...(await inBatches(Array.from({ length: STALLING_KEYS }), 4, (_, i) => createKey(`e2e connections ${i}`))),
  );
  for (const key of [victim, ...attackers]) {
    expect((await call(server, '/pets?limit=1', { authorization: bearer(key) })).status).toBe(200);
  }
}, 120_000);
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await disposeServer(server);
});

/** A POST of `key` that declares 16 KiB and sends none of it, on a connection of its own. */
const stall = (key: string): Promise<void> =>
  new Promise((resolve) => {
    const { hostname, port, pathname, host } = new URL(server.baseUrl);
    const socket = connect(Number(port), hostname, () =>
      socket.write(
        `POST ${pathname}/pets HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${key}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${MAX_BODY_BYTES}\r\n\r\n`,
        () => resolve(),
      ),
    );
    socket.on('error', () => resolve());
    sockets.push(socket);
  });

/** The victim's POST on a new connection: its status (0: the connection was refused) and how long it took. */
const victimPost = (name: string): Promise<{ status: number; ms: number }> =>
  new Promise((resolve) => {
    const started = performance.now();
    const done = (status: number) => resolve({ status, ms: Math.round(performance.now() - started) });
    const body = JSON.stringify({ name, categoryId: 1 });
    const req = request(`${server.baseUrl}/pets`, {
      method: 'POST',
      agent: false,
      headers: { authorization: bearer(victim), 'content-type': 'application/json', 'content-length': body.length },
    });
    req.on('response', (res) => res.resume().on('end', () => done(res.statusCode!)));
    req.on('error', () => done(0));
    req.end(body);
  });

test('keys holding more stalled uploads than the server keeps connections do not lock another key out', async () => {
  const heads = attackers.flatMap((key) => Array.from({ length: STALLED / STALLING_KEYS }, () => key));
  await inBatches(heads, 64, stall);
  await new Promise((resolve) => setTimeout(resolve, 1_000)); // every one taken, or refused
  const timings = [];
  for (let i = 0; i < 5; i++) timings.push(await victimPost(`Not locked out ${i}`));
  expect(
    timings.map(({ status }) => status),
    JSON.stringify(timings),
  ).toEqual([201, 201, 201, 201, 201]);
  expect(Math.max(...timings.map(({ ms }) => ms)), JSON.stringify(timings)).toBeLessThan(WELL_BEHAVED_MS);
  // The server says so at most once a second (connection-limit.ts): the line may follow the answers.
  await vi.waitFor(() => expect(server.output()).toMatch(/cut \d+ upload\(s\) waiting for their body/), {
    timeout: 3_000,
  });
}, 120_000);
