// The authorizer's keys repository on the container's document client (made at init, as the pet
// functions' client is in services.ts), built on first use from the environment the stack sets.
import type { Context } from 'aws-lambda';
import type { KeysRepository } from '../domain/stores.ts';
import { documentClient } from '../dynamodb/document-client.ts';
import { createKeysRepository } from '../dynamodb/keys-repository.ts';
import { keysTable, tableName } from '../dynamodb/tables.ts';
import { codeVersion, logDegradedStep, metric } from '../observability/telemetry.ts';
import { traceDynamoDBCalls } from '../observability/xray.ts';

const client = documentClient(traceDynamoDBCalls);

let keys: KeysRepository | undefined;
export const keysRepository = (): KeysRepository => (keys ??= createKeysRepository(client, tableName(keysTable)));

/**
 * The authorizer's record of a key's last use failed; the key was let in all the same. One WARN
 * line naming the key id (never the key), the invocation (as its summary line names it) and the
 * version that failed, counted (KeyUseRecordFailures), so that a run of them alarms before
 * `keys list` shows keys in use as unused.
 */
export const logKeyUseNotRecorded = (keyId: string, error: unknown, context: Context): void =>
  logDegradedStep('last use not recorded', error, [metric('keyUseRecordFailures', {})], {
    keyId,
    function_request_id: context.awsRequestId,
    ...codeVersion(context),
  });
