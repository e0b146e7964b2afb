// Exactly once, whatever fails (docs/api.md, "Safe retries"): the server is killed at every
// step of idempotent creates (PETSTORE_CRASH_AFTER_WRITES: infra/local/fault-injection.ts
// kills it right after its Nth write is on disk, before the answer leaves), mid-way through
// retries that take over an expired record, and once with a real SIGKILL mid-burst. Then every
// key is retried until it is answered: each key has exactly one animal, and every answer for a
// key, replay or not, is that animal.
import { rmSync } from 'node:fs';
import { afterAll, expect, test } from 'vitest';
import { type LocalServer, newDataDir, startLocalServer } from '../../tools/harness/local-server.ts';
import { type Animal, allPages, unknownKey } from './support.ts';

const dataDir = newDataDir();
const apiKey = unknownKey();
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const start = (crashAfterWrites?: number): Promise<LocalServer> =>
  startLocalServer({
    PETSTORE_DATA_DIR: dataDir,
    PETSTORE_API_KEY: apiKey,
    ...(crashAfterWrites && { PETSTORE_CRASH_AFTER_WRITES: String(crashAfterWrites) }),
  });

/** Every key sent, with the animal answered for it (once one was). */
const answered = new Map<string, Animal[]>();
const bodyOf = (key: string) => ({ name: `exactly once ${key}`, categoryId: 1 + (key.length % 7), status: 'pending' });

interface Outcome {
  status: number;
  retryAfter?: number;
}

/** One idempotent create; status 0 when the server died before answering. */
const create = async (server: LocalServer, key: string): Promise<Outcome> => {
  if (!answered.has(key)) answered.set(key, []);
  let response: Response;
  let text: string;
  try {
    response = await fetch(`${server.baseUrl}/pets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json', 'Idempotency-Key': key },
      body: JSON.stringify(bodyOf(key)),
      signal: AbortSignal.timeout(15_000),
    });
    text = await response.text();
  } catch {
    return { status: 0 }; // the connection broke: the server died before answering
  }
  // Any answer that came is held to the rules: the animal, or a retry later.
  const body = JSON.parse(text) as Animal;
  if (response.status === 201) answered.get(key)!.push(body);
  else expect([409, 503], text).toContain(response.status);
  return { status: response.status, retryAfter: Number(response.headers.get('retry-after') ?? 0) };
};

const unanswered = () => [...answered].filter(([, animals]) => animals.length === 0).map(([key]) => key);

/** Sends creates one after another until the server dies (it must: it crashes on purpose). */
const sequentialUntilDead = async (server: LocalServer, keys: string[]) => {
  for (const key of keys) if ((await create(server, key)).status === 0) break;
  expect(await server.stop()).not.toBe(0); // killed, not stopped
};

test('killed at every step of idempotent creates and of their retries, then retried: one animal per key', async () => {
  let round = 0;
  const fresh = (count: number) => Array.from({ length: count }, () => `r${round}-${crypto.randomUUID()}`);

  // A fresh process writes, per create: the id block (its first create only), the record
  // naming the id, the animal, the completed record. Crashing after write 1…4 stops it at each.
  for (const writes of [1, 2, 3, 4]) {
    round++;
    await sequentialUntilDead(await start(writes), fresh(4));
  }
  // Many creates at once, killed mid-way.
  round++;
  {
    const server = await start(15);
    await Promise.all(fresh(12).map((key) => create(server, key)));
    expect(await server.stop()).not.toBe(0);
  }
  // A real SIGKILL, from outside, mid-burst.
  round++;
  {
    const server = await start();
    const keys = fresh(200);
    let next = 0;
    const loop = async () => {
      while (next < keys.length) if ((await create(server, keys[next++]!)).status === 0) return;
    };
    setTimeout(() => server.process.kill('SIGKILL'), 400);
    await Promise.all(Array.from({ length: 8 }, loop));
    await server.stop();
  }
  const crashed = unanswered();
  expect(crashed.length).toBeGreaterThan(8);

  // Retries of crashed keys get 409 while their first attempt might still run (its record is in
  // progress until the function's timeout), then take the record over. Kill those mid-way too:
  // a retry of a key whose animal was written (round 3), killed once it took the record over
  // (the id block, then the record); a retry of a key whose record names an id but whose animal
  // was never written (round 2), killed once it wrote the animal.
  for (const [writes, crashedIn] of [
    [2, 3],
    [3, 2],
  ] as const) {
    const server = await start(writes);
    const key = unanswered().find((k) => k.startsWith(`r${crashedIn}-`));
    expect(key, `a key left unanswered in round ${crashedIn}`).toBeDefined();
    for (let tries = 0; tries < 40; tries++) {
      const outcome = await create(server, key!);
      if (outcome.status !== 409) break;
      await new Promise((resolve) => setTimeout(resolve, 1000 * (outcome.retryAfter || 1)));
    }
    expect(await server.stop()).not.toBe(0);
    expect(answered.get(key!)).toEqual([]);
  }

  // Every key, retried until answered, and once more: each has one animal, every answer is it.
  const server = await start();
  try {
    const retry = async (key: string) => {
      for (let tries = 0; tries < 30; tries++) {
        const outcome = await create(server, key);
        if (outcome.status === 201) return;
        await new Promise((resolve) => setTimeout(resolve, 1000 * (outcome.retryAfter || 1)));
      }
    };
    await Promise.all(unanswered().map(retry));
    expect(unanswered()).toEqual([]);
    for (const key of answered.keys()) expect((await create(server, key)).status, key).toBe(201);

    const listed = (await allPages(server, '/pets?status=pending&limit=100')).flatMap((page) => page.body);
    const byName = Map.groupBy(listed, (animal) => animal.name);
    const wrong: string[] = [];
    for (const [key, answers] of answered) {
      const animals = byName.get(bodyOf(key).name) ?? [];
      if (animals.length !== 1) wrong.push(`${key}: ${animals.length} animals`);
      else if (answers.some((answer) => answer.id !== animals[0]!.id)) wrong.push(`${key}: answered another animal`);
    }
    expect(wrong).toEqual([]);
  } finally {
    await server.stop();
  }
}, 120_000);
