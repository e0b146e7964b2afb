// The status index's partition key is the status and a shard number, `<status>#<id mod N>`:
// a status's writes spread over N index partitions instead of one, whose ~1,000 writes per
// second would otherwise cap all creates of a status together (docs/capacity.md). N only
// grows: an item keeps the shard it was written under, and a read covers shards 0..N-1,
// which include every shard any smaller N ever used, so raising N needs no backfill.
import type { PetStatus } from '../api/schemas.ts';

/** The functions learn N through this variable (the stack's statusIndexShards, the local PETSTORE_INDEX_SHARDS). */
export const STATUS_SHARDS_ENV = 'PETS_STATUS_SHARDS';

/** The index attribute a pet is written with: its status and its shard. */
export const statusShardKey = (status: PetStatus, id: number, shards: number): string => `${status}#${id % shards}`;

/** Every key value of `status` at N = `shards`. */
export const statusShardKeys = (status: PetStatus, shards: number): string[] =>
  Array.from({ length: shards }, (_, shard) => `${status}#${shard}`);

/** N from the environment: 1 when unset (as before sharding); anything but a positive integer is a fault. */
export const statusShardsFrom = (env: NodeJS.ProcessEnv = process.env): number => {
  const value = env[STATUS_SHARDS_ENV];
  if (value === undefined) return 1;
  const shards = Number(value);
  if (!Number.isInteger(shards) || shards < 1) throw new Error(`${STATUS_SHARDS_ENV} must be a positive integer`);
  return shards;
};
