// The local stage started again with fewer status-index shards than its data was written with
// (as a rollback or an older tag deployed would run a lower N): every animal still lists under
// its status, over HTTP. Readers cover the most shards any writer used
// (shared/dynamodb/shard-count.ts), recorded in the data's own counters table.
import { rmSync } from 'node:fs';
import { afterAll, expect, test } from 'vitest';
import { type LocalServer, newDataDir } from '../../tools/harness/local-server.ts';
import { allPages, createPet, startServer } from './support.ts';

const dataDir = newDataDir();
let server: LocalServer | undefined;
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('written at PETSTORE_INDEX_SHARDS=4, listed at 1: every animal of the status', async () => {
  server = await startServer({ PETSTORE_DATA_DIR: dataDir, PETSTORE_INDEX_SHARDS: '4' });
  const created = [];
  for (let i = 0; i < 12; i++)
    created.push(await createPet(server, { name: `shard ${i}`, categoryId: 4, status: 'sold' }));
  // Ids mod 4: animals on every shard, three quarters of them on shards N = 1 never reads.
  expect(new Set(created.map((pet) => pet.id % 4)).size).toBe(4);
  await server.stop();

  server = await startServer({ PETSTORE_DATA_DIR: dataDir, PETSTORE_INDEX_SHARDS: '1' });
  const listed = (await allPages(server, '/pets?status=sold&limit=5')).flatMap((page) => page.body);
  expect(listed.map((pet) => pet.id)).toEqual(created.map((pet) => pet.id));
}, 180_000);
