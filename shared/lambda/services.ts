// The container's DynamoDB client, made at init, and its repositories, built on first
// use from the environment the stack sets; all reused by every invocation.
import { type CursorCodec, createCursorCodec } from '../domain/cursor.ts';
import type { KeysRepository, PetsRepository } from '../domain/stores.ts';
import { documentClient } from '../dynamodb/client.ts';
import { createKeysRepository } from '../dynamodb/keys-repository.ts';
import { createPetsRepository } from '../dynamodb/pets-repository.ts';
import { countersTable, keysTable, petsTable, tableName } from '../dynamodb/tables.ts';
import { traceDynamoDBCalls } from '../observability/xray.ts';

const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

/** Made on first use: only listPets pages, so only its function is given CURSOR_SECRET. */
let cursorCodec: CursorCodec | undefined;
const codec = (): CursorCodec => (cursorCodec ??= createCursorCodec(required('CURSOR_SECRET')));
const cursors: CursorCodec = {
  encode: (position) => codec().encode(position),
  decode: (cursor, status) => codec().decode(cursor, status),
};

/**
 * Made at init (module top level), not on the first invocation, which a cold start waits
 * for. The repositories stay made on first use: cheap, and they need the table names, which
 * a bundle loaded on its own lacks. Every DynamoDB call a subsegment of the invocation's
 * trace, when Lambda sampled it.
 */
const client = documentClient(traceDynamoDBCalls);

let pets: PetsRepository | undefined;
export const petsRepository = (): PetsRepository =>
  (pets ??= createPetsRepository({
    client,
    petsTableName: tableName(petsTable),
    countersTableName: tableName(countersTable),
    cursors,
  }));

let keys: KeysRepository | undefined;
export const keysRepository = (): KeysRepository => (keys ??= createKeysRepository(client, tableName(keysTable)));
