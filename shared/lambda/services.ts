// The pet functions' DynamoDB client, made at init, and their repository, built on first use
// from the environment the stack sets; all reused by every invocation. The authorizer's keys:
// keys-service.ts.
import { type CursorCodec, createCursorCodec } from '../domain/cursor.ts';
import type { PetsRepository } from '../domain/stores.ts';
import { dynamodbClient } from '../dynamodb/client.ts';
import { createPetsRepository } from '../dynamodb/pets-repository.ts';
import { statusShardsFrom } from '../dynamodb/status-shards.ts';
import { countersTable, petsTable, tableName } from '../dynamodb/tables.ts';
import { containerCodeVersion, logDegradedStep, metric } from '../observability/telemetry.ts';
import { traceDynamoDBCalls } from '../observability/xray.ts';

/**
 * listPets' cursor codec, for the secret it was given last (cursor-secret.ts reads it): only
 * listPets pages, so only its function has the secret, and sets it before each listing.
 */
let current: { readonly secret: string; readonly codec: CursorCodec } | undefined;
export const useCursorSecret = (secret: string): void => {
  if (current?.secret !== secret) current = { secret, codec: createCursorCodec(secret) };
};
const codec = (): CursorCodec => {
  if (!current) throw new Error('no cursor secret: useCursorSecret() before listing');
  return current.codec;
};
const cursors: CursorCodec = {
  encode: (position) => codec().encode(position),
  decode: (cursor, status) => codec().decode(cursor, status),
};

/**
 * Made at init (module top level), not on the first invocation, which a cold start waits for.
 * The repository stays made on first use: cheap, and it needs the table names, which a bundle
 * loaded on its own lacks. Every DynamoDB call a subsegment of the invocation's trace, when
 * Lambda sampled it.
 */
const client = dynamodbClient(traceDynamoDBCalls);

let pets: PetsRepository | undefined;
export const petsRepository = (): PetsRepository =>
  (pets ??= createPetsRepository({
    client,
    petsTableName: tableName(petsTable),
    countersTableName: tableName(countersTable),
    cursors,
    statusShards: statusShardsFrom(),
    // Once per failed re-read (at most twice a second), never with a key or a request's input;
    // counted (ShardRecordReadFailures), so that a run of them alarms before listings fail; with the
    // version and commit that failed, as the authorizer's degraded line names them.
    onShardRefreshFailure: (error) =>
      logDegradedStep(
        'status-index shard record not re-read; listed the shards known',
        error,
        [metric('shardRecordReadFailures', {})],
        containerCodeVersion(),
      ),
  }));
