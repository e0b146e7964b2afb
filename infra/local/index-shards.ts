// The local counterpart of infra/status-index-shards.ts: the data directory records the most
// shards its status index has had, so that a start with fewer (which would hide the animals
// written to the shards above) is refused, and a start with more raises the record.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const RECORD_FILE = 'status-index-shards';

/** Throws if `dataDir` was written with more shards than `shards`; otherwise records the larger of the two. */
export const recordIndexShards = (dataDir: string, shards: number): void => {
  const file = join(dataDir, RECORD_FILE);
  const recorded = existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : 1;
  if (shards < recorded)
    throw new Error(
      `PETSTORE_INDEX_SHARDS is ${shards}, but ${dataDir} was written with ${recorded}: animals in the shards ` +
        `above would vanish from filtered listings. Start with PETSTORE_INDEX_SHARDS=${recorded} or more ` +
        '(N may only grow), or use another PETSTORE_DATA_DIR.',
    );
  if (shards !== recorded || !existsSync(file)) writeFileSync(file, `${shards}\n`);
};
