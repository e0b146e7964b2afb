// The authorizer's keys repository on the container's document client (made at init, as the pet
// functions' client is in services.ts), built on first use from the environment the stack sets.
import type { KeysRepository } from '../domain/stores.ts';
import { documentClient } from '../dynamodb/document-client.ts';
import { createKeysRepository } from '../dynamodb/keys-repository.ts';
import { keysTable, tableName } from '../dynamodb/tables.ts';
import { traceDynamoDBCalls } from '../observability/xray.ts';

const client = documentClient(traceDynamoDBCalls);

let keys: KeysRepository | undefined;
export const keysRepository = (): KeysRepository => (keys ??= createKeysRepository(client, tableName(keysTable)));
