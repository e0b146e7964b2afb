// lib-dynamodb's document client, on a plain client of client.ts without the handler cache (its
// commands cannot use it), for the keys and the idempotency records. A module of its own, so that
// a bundle that never reads keys or records at import (the pet functions) leaves lib-dynamodb to
// the chunk that does (createPet's idempotency code): esbuild splits by module.
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  type ClientInstrumentation,
  type Connection,
  containerClient,
  DYNAMODB_TIME_BUDGET,
  plainClient,
  uninstrumented,
} from './client.ts';

const MARSHALLING = { marshallOptions: { removeUndefinedValues: true } };

export const createDocumentClient = (
  budget = DYNAMODB_TIME_BUDGET,
  instrument = uninstrumented,
  connection?: Connection,
): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(plainClient(budget, instrument, false, connection), MARSHALLING);

let shared: DynamoDBDocumentClient | undefined;
/** The container's document client (keys, idempotency records), made on first use and reused by every invocation. */
export const documentClient = (instrument?: ClientInstrumentation): DynamoDBDocumentClient =>
  (shared ??= DynamoDBDocumentClient.from(containerClient(false, instrument), MARSHALLING));
