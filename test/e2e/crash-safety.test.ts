// `kill -9` at any moment loses no answered create and leaves no phantom: after
// restarts, every animal a listing shows can be fetched by id, and every animal
// answered 201 is listed and fetched. The server is killed ten times mid-burst.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { fromLevel } from '../../infra/local/dynalite-modules.ts';
import { newDataDir } from '../../tools/harness/local-server.ts';
import {
  type Animal,
  allPages,
  call,
  disposeServer,
  STATUSES,
  type Status,
  startServer,
  unknownKey,
} from './support.ts';

const dataDir = newDataDir();
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const ROUNDS = 10;
const CONNECTIONS = 16;

/** Creates animals on `CONNECTIONS` loops until the server dies; returns those answered 201. */
const burstUntilKilled = async (
  baseUrl: string,
  key: string,
  killAfterMs: number,
  kill: () => void,
): Promise<Animal[]> => {
  const answered: Animal[] = [];
  let alive = true;
  setTimeout(() => {
    alive = false;
    kill();
  }, killAfterMs);
  const loop = async (loopIndex: number) => {
    for (let i = 0; alive; i++) {
      const status: Status = STATUSES[(loopIndex + i) % 3]!;
      try {
        const response = await fetch(`${baseUrl}/pets`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: `crash ${loopIndex}.${i}`, categoryId: 1 + i, status }),
        });
        const text = await response.text();
        if (response.status === 201) answered.push(JSON.parse(text) as Animal);
      } catch {
        return; // the server is gone: this create was never answered
      }
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, (_, i) => loop(i)));
  return answered;
};

test(`SIGKILL ${ROUNDS} times mid-burst: no answered create lost, no phantom listed`, async () => {
  const key = unknownKey();
  const answered = new Map<number, Animal>();
  for (let round = 0; round < ROUNDS; round++) {
    const server = await startServer({ PETSTORE_DATA_DIR: dataDir, PETSTORE_API_KEY: key });
    const created = await burstUntilKilled(server.baseUrl, key, 300 + 70 * round, () => server.process.kill('SIGKILL'));
    await server.stop();
    for (const animal of created) answered.set(animal.id, animal);
  }
  expect(answered.size).toBeGreaterThan(ROUNDS);

  const server = await startServer({ PETSTORE_DATA_DIR: dataDir, PETSTORE_API_KEY: key });
  try {
    const listed = new Map<number, Animal>();
    for (const status of STATUSES) {
      for (const page of await allPages(server, `/pets?status=${status}&limit=100`)) {
        for (const animal of page.body) listed.set(animal.id, animal);
      }
    }
    const unfiltered = (await allPages(server, '/pets?limit=100')).flatMap((page) => page.body);
    expect(new Set(unfiltered.map((a) => a.id))).toEqual(new Set(listed.keys()));

    const phantoms: number[] = [];
    for (const [id, animal] of listed) {
      const got = await call<Animal>(server, `/pets/${id}`);
      if (got.status !== 200) phantoms.push(id);
      else expect(got.body).toEqual(animal);
    }
    expect(phantoms, 'listed but not found by id').toEqual([]);
    const lost = [...answered.values()].filter((animal) => !listed.has(animal.id));
    expect(lost, 'answered 201 but not listed').toEqual([]);
    for (const animal of answered.values()) expect(listed.get(animal.id)).toEqual(animal);
  } finally {
    await disposeServer(server);
  }
}, 240_000);

/** dynalite's LevelDB class, as the embedded DynamoDB opens its store. */
const levelOfDynalite = () => {
  return fromLevel('classic-level') as {
    ClassicLevel: new (
      path: string,
      options: { valueEncoding: 'json' },
    ) => {
      iterator(options: { gte: string; lt: string }): AsyncIterable<[string, Record<string, { N?: string }>]>;
      del(key: string): Promise<void>;
      close(): Promise<void>;
    };
  };
};

test('a listing entry without its animal, as a crash before atomic writes left it, is removed at the next start', async () => {
  const dir = newDataDir();
  try {
    const key = unknownKey();
    let server = await startServer({ PETSTORE_DATA_DIR: dir, PETSTORE_API_KEY: key });
    const created: Animal[] = [];
    for (const name of ['Kept', 'Phantom', 'Also kept']) {
      const reply = await call<Animal>(server, '/pets', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name, categoryId: 1, status: 'pending' }),
      });
      created.push(reply.body);
    }
    await server.stop();

    // What the crash left: the item gone, its index entry still there, no clean stop recorded.
    const phantom = created[1]!;
    const { ClassicLevel } = levelOfDynalite();
    const store = new ClassicLevel(join(dir, 'dynamodb'), { valueEncoding: 'json' });
    for await (const [storeKey, item] of store.iterator({ gte: 'item-pets~', lt: 'item-pets~\xff' })) {
      if (item.id?.N === String(phantom.id)) await store.del(storeKey);
    }
    await store.close();
    rmSync(join(dir, 'clean-shutdown'), { force: true });

    server = await startServer({ PETSTORE_DATA_DIR: dir, PETSTORE_API_KEY: key });
    try {
      expect(server.output()).toMatch(/repaired: removed 1 listing entr/);
      const listed = (await allPages(server, '/pets?status=pending')).flatMap((page) => page.body);
      expect(listed).toEqual([created[0], created[2]]);
      expect((await call(server, `/pets/${phantom.id}`)).status).toBe(404);
    } finally {
      await server.stop();
    }
    // Stopped cleanly: the next start has nothing to repair and says nothing.
    server = await startServer({ PETSTORE_DATA_DIR: dir, PETSTORE_API_KEY: key });
    await server.stop();
    expect(server.output()).not.toMatch(/repaired/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
