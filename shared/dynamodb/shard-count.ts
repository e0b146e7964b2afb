// How many status-index shards a read must cover, whatever N each function was deployed with.
// The setting (status-shards.ts) can go down at run time: a stack or CodeDeploy rollback, a
// deploy of an older tag, or a CodeDeploy canary where createPet already runs the new N and
// listPets still the old one. So the counters table keeps one item, `statusIndexShards`, the
// most shards any writer has used, which only grows:
//
// - A writer with N > 1 raises it to N (a conditional update that never lowers it) once per
//   container, BEFORE its first put: no item is ever on shard s unless the record said s + 1 or
//   more before that item was written.
// - A reader covers max(its own N, the record). It re-reads the record (strongly consistent)
//   when its last successful read is RECORD_REFRESH_MS old, in parallel with the shards it
//   already knows, and queries the shards the record adds when it grew: no DynamoDB call per
//   request, no wait.
//
// Staleness: an item on a shard the reader does not know yet was written after the record was
// raised for it, hence after the start of the reader's last successful read of the record (a
// strongly consistent read sees every write acknowledged before it). So a listing whose count
// comes from a read started less than RECORD_TRUST_MS ago misses only animals written on a shard
// raised less than RECORD_TRUST_MS ago, within the time a new animal may already lag in the
// index (docs/api.md: Freshness); animals written before any raise it missed are on shards it
// covers.
//
// A failing re-read (docs/capacity.md): between RECORD_REFRESH_MS and RECORD_TRUST_MS after the
// last successful read it is best effort: the listing answers with the count it knows (still
// within the bound above), the failure is logged (onRefreshFailure), and the next listing tries
// again. (The re-read keeps the client's retries, as the listing's Queries do: in parallel with
// them, they seldom add to its time, and a container that must read the record needs them
// against a passing throttle.) Past RECORD_TRUST_MS, and in a container that never read the record, the count it knows
// proves nothing (after a rollback to N = 1 it is 1, and most animals are on other shards): the
// listing needs the read, and fails with it (a 503 when DynamoDB is unavailable) rather than
// answer without animals it has. Either way, a listing answers only once every request it
// started has settled, retries included: none is still in flight after it answered (in Lambda,
// one would be frozen with the container and resume, or fail, in another invocation).
import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  GetItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { withAvailability } from './availability.ts';

/** The counters table's item that records the most shards the status index was written with. */
export const SHARD_RECORD_KEY = 'statusIndexShards';
/** Due for a re-read: a reader re-reads the record at most this often (twice a second). */
const RECORD_REFRESH_MS = 500;
/** How long a count read may stand in for the record: the most a listing may lag a raise. */
const RECORD_TRUST_MS = 1000;

/** The listing's requests for shards `from` to `to - 1`. */
type ShardQueries<T> = (from: number, to: number) => Promise<T>[];

export interface ShardCount {
  /** Before a write with this container's N: the record is raised to N (once per container). */
  raise(): Promise<void>;
  /** Every shard's answer, from 0 to the most any writer used: see the top of this file. */
  cover<T>(queries: ShardQueries<T>): Promise<T[]>;
}

/**
 * Every call settled before this settles (not Promise.all, which answers at the first failure
 * and leaves the others and their retries running): the first failure is the one thrown.
 */
const settledAll = async <T>(calls: Promise<T>[]): Promise<T[]> => {
  let failure: { error: unknown } | undefined;
  const results = await Promise.allSettled(
    calls.map((call) =>
      call.catch((error: unknown) => {
        failure ??= { error };
        throw error;
      }),
    ),
  );
  if (failure) throw failure.error;
  return results.map((result) => (result as PromiseFulfilledResult<T>).value);
};

export const createShardCount = (
  client: DynamoDBClient,
  countersTableName: string,
  configured: number,
  /** Told of a best-effort re-read that failed (once per failed re-read, not per retry). */
  onRefreshFailure: (error: unknown) => void = () => undefined,
  now: () => number = Date.now,
): ShardCount => {
  const Key = { counter: { S: SHARD_RECORD_KEY } };
  const ExpressionAttributeNames = { '#value': 'value' };
  let recorded = 1;
  let readAt = Number.NEGATIVE_INFINITY;
  /** Re-reads in flight: a listing that may do without one does not start another. */
  let reading = 0;
  let raised: Promise<void> | undefined;
  const known = () => Math.max(configured, recorded);

  const read = async () => {
    const startedAt = now();
    reading++;
    try {
      const { Item } = await withAvailability(() =>
        client.send(new GetItemCommand({ TableName: countersTableName, Key, ConsistentRead: true })),
      );
      // Only ever up: an older answer arriving late changes nothing.
      recorded = Math.max(recorded, Number(Item?.value?.N ?? 1));
      readAt = Math.max(readAt, startedAt);
      return known();
    } finally {
      reading--;
    }
  };

  /** The count to cover, read again when due; undefined when the known count will do without. */
  const refresh = (): Promise<number> | undefined => {
    const age = now() - readAt;
    if (age >= RECORD_TRUST_MS) return read();
    if (age < RECORD_REFRESH_MS || reading > 0) return undefined;
    const before = known();
    return read().catch((error: unknown) => {
      // Best effort: the count known is within the bound, and the next listing tries again.
      onRefreshFailure(error);
      return before;
    });
  };

  const raiseRecord = async () => {
    try {
      await withAvailability(() =>
        client.send(
          new UpdateItemCommand({
            TableName: countersTableName,
            Key,
            UpdateExpression: 'SET #value = :shards',
            ConditionExpression: 'attribute_not_exists(#value) OR #value < :shards',
            ExpressionAttributeNames,
            ExpressionAttributeValues: { ':shards': { N: String(configured) } },
          }),
        ),
      );
    } catch (error) {
      // The record is already N or more.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  };

  return {
    raise() {
      // N = 1 writes only shard 0, which every reader covers.
      if (configured === 1) return Promise.resolve();
      raised ??= raiseRecord().catch((error: unknown) => {
        // Not raised: the next write tries again, and none is made meanwhile.
        raised = undefined;
        throw error;
      });
      return raised;
    },
    async cover(queries) {
      const before = known();
      const latest = refresh();
      const knownPages = settledAll(queries(0, before));
      if (latest === undefined) return knownPages;
      let count = before;
      await settledAll([
        latest.then((value) => {
          count = value;
        }),
        knownPages.then(() => undefined),
      ]);
      const pages = await knownPages;
      // The shards the record adds, after those known.
      return count > before ? [...pages, ...(await settledAll(queries(before, count)))] : pages;
    },
  };
};
