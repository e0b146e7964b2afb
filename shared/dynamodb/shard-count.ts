// How many status-index shards a read must cover, whatever N each function was deployed with.
// The setting (status-shards.ts) can go down at run time: a stack or CodeDeploy rollback, a
// deploy of an older tag, or a CodeDeploy canary where createPet already runs the new N and
// listPets still the old one. So the counters table keeps one item, `statusIndexShards`, the
// most shards any writer has used, which only grows:
//
// - A writer with N > 1 raises it to N (a conditional update that never lowers it) once per
//   container, BEFORE its first put: no item is ever on shard s unless the record said s + 1 or
//   more before that item was written.
// - A reader covers max(its own N, the record). It reads the record (strongly consistent) at most
//   once per RECORD_REFRESH_MS, in parallel with the shards it already knows, and queries the
//   shards the record adds when it grew: no DynamoDB call per request, no wait.
//
// Staleness: an item on a shard the reader does not know yet was written after the record was
// raised for it, hence after the reader's last read of the record (a strongly consistent read
// sees every write acknowledged before it) or while that read was in flight. Such an item misses
// the listings of a container for at most RECORD_REFRESH_MS after the raise (then it is read,
// and never unread), within the time a new animal may already lag in the index (docs/api.md:
// Freshness). Animals written before any raise the reader missed are on shards it covers.
import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  GetItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { withAvailability } from './availability.ts';

/** The counters table's item that records the most shards the status index was written with. */
export const SHARD_RECORD_KEY = 'statusIndexShards';
/** How long a reader trusts the record it read last. */
const RECORD_REFRESH_MS = 1000;

export interface ShardCount {
  /** Before a write with this container's N: the record is raised to N (once per container). */
  raise(): Promise<void>;
  /** The shards known now, without a call: max(N, the record last read). */
  known(): number;
  /** The shards to cover: the record re-read when older than RECORD_REFRESH_MS, else known(). */
  current(): Promise<number>;
}

export const createShardCount = (
  client: DynamoDBClient,
  countersTableName: string,
  configured: number,
  now: () => number = Date.now,
): ShardCount => {
  const Key = { counter: { S: SHARD_RECORD_KEY } };
  const ExpressionAttributeNames = { '#value': 'value' };
  let recorded = 1;
  let readAt = Number.NEGATIVE_INFINITY;
  let reading: Promise<number> | undefined;
  let raised: Promise<void> | undefined;

  const read = async () => {
    const startedAt = now();
    const { Item } = await withAvailability(() =>
      client.send(new GetItemCommand({ TableName: countersTableName, Key, ConsistentRead: true })),
    );
    const value = Number(Item?.value?.N ?? 1);
    // Only ever up: an older answer arriving late changes nothing.
    recorded = Math.max(recorded, value);
    readAt = Math.max(readAt, startedAt);
    return Math.max(configured, recorded);
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
    known: () => Math.max(configured, recorded),
    current() {
      if (now() - readAt < RECORD_REFRESH_MS) return Promise.resolve(Math.max(configured, recorded));
      reading ??= read().finally(() => {
        reading = undefined;
      });
      return reading;
    },
  };
};
