// The tables, defined once: infra/ turns these into TableV2 resources and the local
// server into CreateTable calls, so the two can never disagree.

type AttributeType = 'S' | 'N';
export interface KeyAttribute {
  readonly name: string;
  readonly type: AttributeType;
}
interface IndexDefinition {
  readonly indexName: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey?: KeyAttribute;
  readonly projection: 'ALL' | 'KEYS_ONLY';
}
export interface TableDefinition {
  /** Logical name: the CDK construct id, and the table name on the local server. */
  readonly name: string;
  /** Environment variable through which the functions learn the physical table name. */
  readonly envVar: string;
  readonly partitionKey: KeyAttribute;
  readonly indexes: readonly IndexDefinition[];
  /** Deployed only: DynamoDB deletes an item once this epoch-seconds attribute is past (dynalite has no TTL). */
  readonly timeToLiveAttribute?: string;
}

/** Keyed by statusShard (shared/dynamodb/status-shards.ts), not status: a status's writes spread over N partitions. */
export const STATUS_INDEX = 'byStatusShard';
export const STATUS_SHARD_ATTRIBUTE = 'statusShard';

export const petsTable = {
  name: 'pets',
  envVar: 'PETS_TABLE_NAME',
  partitionKey: { name: 'id', type: 'N' },
  indexes: [
    {
      indexName: STATUS_INDEX,
      partitionKey: { name: STATUS_SHARD_ATTRIBUTE, type: 'S' },
      sortKey: { name: 'id', type: 'N' },
      // ALL: an item is the four Animal fields and its index key, so projecting them all costs
      // nothing extra and lets one Query answer a filtered page with no read-back to
      // the table; a hand-kept INCLUDE list would silently drop any field added later.
      projection: 'ALL',
    },
  ],
} as const satisfies TableDefinition;

/** API keys, stored only as the SHA-256 of the key. */
export const keysTable = {
  name: 'keys',
  envVar: 'KEYS_TABLE_NAME',
  partitionKey: { name: 'keyHash', type: 'S' },
  indexes: [],
} as const satisfies TableDefinition;

/** Atomic counters; one item, `petId`, hands out blocks of animal ids. */
export const countersTable = {
  name: 'counters',
  envVar: 'COUNTERS_TABLE_NAME',
  partitionKey: { name: 'counter', type: 'S' },
  indexes: [],
} as const satisfies TableDefinition;

/**
 * Idempotency-Key records of createPet, written by Powertools' DynamoDB persistence
 * layer (its default attribute names). Expiry does not wait for TTL, which deletes up
 * to days late and not at all locally: Powertools compares `expiration` with the clock.
 */
export const idempotencyTable = {
  name: 'idempotency',
  envVar: 'IDEMPOTENCY_TABLE_NAME',
  partitionKey: { name: 'id', type: 'S' },
  indexes: [],
  timeToLiveAttribute: 'expiration',
} as const satisfies TableDefinition;

export const tables = [petsTable, keysTable, countersTable, idempotencyTable] as const;

/** The physical table name, from the environment the stack (or the local server) sets. */
export const tableName = (table: TableDefinition, env: NodeJS.ProcessEnv = process.env): string => {
  const name = env[table.envVar];
  if (!name) throw new Error(`${table.envVar} is not set`);
  return name;
};
