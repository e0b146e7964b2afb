// Many keys together cannot stall another key's uploads either (docs/api.md, "Limits per key": a
// stalled upload slows only its own key). An outside attack found that eight keys could: each held
// 260 POST /v1/pets that declare 16 KiB and send nothing, which together filled the budget of all
// bodies being read (body-budget.ts), and a ninth key's POSTs waited up to 8.7 s, over and over (each
// stalled upload reconnecting after its 400). Read keys did it too, with GETs that declare a body.
// Against `npm start`'s server on its own defaults, over raw sockets (fetch cannot send headers and
// then nothing).
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { MAX_BODY_BYTES } from '../../shared/api/routes.ts';
import type { LocalServer } from '../../tools/harness/local-server.ts';
import { bearer, call, disposeServer, inBatches, keyTool, postPet, startServer } from './support.ts';

/** The figures: 16 keys stalling at once, each with more uploads than a key may hold at once. */
const STALLING_KEYS = 16;
const UPLOADS_PER_KEY = 260;
/** What the issue asks of a well-behaved key's POST, whatever the others do. */
const WELL_BEHAVED_MS = 1_000;

let server: LocalServer;
let victim: string;
const attackers: string[] = [];
const sockets: Socket[] = [];

const createKey = async (label: string, scope: 'read' | 'write') => {
  const { code, stdout, stderr } = await keyTool(server.dataDir, 'create', '--label', label, '--scope', scope);
  expect(code, stderr).toBe(0);
  return /\b(pet_[0-9A-Za-z]+)/.exec(stdout)![1]!;
};

beforeAll(async () => {
  // Every stalled upload passes its own key's limits: only the bodies' budget is under test.
  server = await startServer({ PETSTORE_KEY_BURST: '10000' });
  victim = await createKey('e2e upload fairness victim', 'write');
  attackers.push(
    ...(await inBatches(Array.from({ length: STALLING_KEYS }), 4, (_, i) =>
      createKey(`e2e upload fairness ${i}`, i % 2 ? 'read' : 'write'),
    )),
  );
  // Each key's answer from the authorizer cached first, as a busy stage has it.
  for (const key of [victim, ...attackers]) {
    expect((await call(server, '/pets?limit=1', { authorization: bearer(key) })).status).toBe(200);
  }
}, 120_000);
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await disposeServer(server);
});

/** Opens a connection and sends `head` and nothing after it; resolves once written. Its answers go to `answers`. */
const openStalled = (head: string, answers: string[]): Promise<void> =>
  new Promise((resolve) => {
    const { hostname, port } = new URL(server.baseUrl);
    const socket = connect(Number(port), hostname, () => socket.write(head, () => resolve()));
    socket.on('data', (data) => answers.push(String(data).split('\r\n')[0]!));
    socket.on('error', () => resolve());
    sockets.push(socket);
  });

/** A request of `key` that declares a 16 KiB body and sends none of it. */
const stalledHead = (method: 'GET' | 'POST', key: string) => {
  const { pathname, host } = new URL(server.baseUrl);
  const target = method === 'GET' ? `${pathname}/pets?limit=1` : `${pathname}/pets`;
  return (
    `${method} ${target} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${key}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${MAX_BODY_BYTES}\r\n\r\n`
  );
};

const stall = async (heads: string[], answers: string[]) => {
  for (let opened = 0; opened < heads.length; opened += 256) {
    await Promise.all(heads.slice(opened, opened + 256).map((head) => openStalled(head, answers)));
  }
  // Time for the server to take every request it was sent.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
};

/** How long each of the victim's POSTs takes: three one after another, then four at once. */
const victimPosts = async (): Promise<Array<{ status: number; ms: number }>> => {
  const post = async (name: string) => {
    const started = performance.now();
    const reply = await postPet(server, { name, categoryId: 1 }, { authorization: bearer(victim) });
    return { status: reply.status, ms: Math.round(performance.now() - started) };
  };
  const timings = [];
  for (let i = 0; i < 3; i++) timings.push(await post(`Served ${i}`));
  timings.push(...(await Promise.all([0, 1, 2, 3].map((i) => post(`Served together ${i}`)))));
  return timings;
};

const closeAll = async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await new Promise((resolve) => setTimeout(resolve, 500));
};

test('16 keys stalling their uploads do not slow another key’s POST', async () => {
  const writers = attackers.filter((_, i) => i % 2 === 0);
  // Write keys stall POSTs, read keys GETs that declare a body: each key holds all it is let hold.
  const heads = attackers.flatMap((key) =>
    Array.from({ length: UPLOADS_PER_KEY }, () => stalledHead(writers.includes(key) ? 'POST' : 'GET', key)),
  );
  await stall(heads, []);
  const timings = await victimPosts();
  expect(timings.map(({ status }) => status)).toEqual(Array(timings.length).fill(201));
  expect(Math.max(...timings.map(({ ms }) => ms)), JSON.stringify(timings)).toBeLessThan(WELL_BEHAVED_MS);
  await closeAll();
}, 120_000);

test('a GET that declares a body reserves none of the budget: it is answered without waiting for it', async () => {
  const readers = attackers.filter((_, i) => i % 2 === 1).slice(0, 8);
  const answers: string[] = [];
  const heads = readers.flatMap((key) => Array.from({ length: UPLOADS_PER_KEY }, () => stalledHead('GET', key)));
  await stall(heads, answers);
  // While the GETs are answered (their function runs 8 at a time), the victim's POSTs are not slowed.
  const timings = await victimPosts();
  expect(Math.max(...timings.map(({ ms }) => ms)), JSON.stringify(timings)).toBeLessThan(WELL_BEHAVED_MS);
  // Every GET is answered, though none of the bodies it declared came (before: 400, the body not
  // received in time, after holding the budget that long).
  for (let waited = 0; answers.length < heads.length && waited < 60_000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(answers.length, `${answers.length} of ${heads.length} answered`).toBe(heads.length);
  expect(new Set(answers)).toEqual(new Set(['HTTP/1.1 200 OK']));
  await closeAll();
}, 120_000);
