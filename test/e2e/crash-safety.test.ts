// `kill -9` at any moment loses no answered create and leaves no phantom: after
// restarts, every animal a listing shows can be fetched by id, and every animal
// answered 201 is listed and fetched. The server is killed ten times mid-burst.
import { rmSync } from 'node:fs';
import { afterAll, expect, test } from 'vitest';
import { newDataDir } from '../support/local-server.ts';
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
