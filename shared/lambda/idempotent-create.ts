// Safe retries of a create (docs/api.md, "Safe retries"), the part loaded only for a request
// with an Idempotency-Key (idempotency.ts says why): Powertools' idempotency utility and a
// persistence layer that reserves the animal's id in the record
// (shared/dynamodb/idempotency-records.ts says why Powertools alone is not enough): the first
// request with a key takes a record naming an id, creates the animal under it, and stores its
// 201; a repeat with the same body, within IDEMPOTENCY_WINDOW_SECONDS, gets that 201 again.
// However the first attempt ended (failed, timed out, crashed), a retry finds the animal it made
// under that id, or makes it then: one animal per key, whatever fails.
import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import { makeHandlerIdempotent } from '@aws-lambda-powertools/idempotency/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import { ConflictError, ServiceUnavailableError, UnprocessableEntityError } from '../api/errors.ts';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_WINDOW_SECONDS, IDEMPOTENT_REPLAYED_HEADER } from '../api/idempotency.ts';
import { isUnavailable } from '../dynamodb/availability.ts';
import { documentClient } from '../dynamodb/document-client.ts';
import { type Reservation, ReservingPersistenceLayer } from '../dynamodb/idempotency-records.ts';
import { idempotencyTable, tableName } from '../dynamodb/tables.ts';
import { traceDynamoDBCalls } from '../observability/xray.ts';
import type { IdempotentCreate } from './idempotency.ts';

type Result = APIGatewayProxyResult;
type AttemptMiddleware = MiddlewareObj<Attempt, Result, Error, Context, Record<string, unknown>>;

/**
 * What the record is made of: the caller's key id and Idempotency-Key, and the body as parsed
 * JSON; and the animal id it names (the reservation, filled in when the record is taken).
 */
interface Attempt {
  readonly scope: string;
  readonly key: string;
  readonly body: unknown;
  readonly reservation: Reservation;
  readonly run: (reserved: NonNullable<Reservation['taken']>) => Promise<Result>;
}

/** Thrown past the middleware so that it releases the record: only a 201 is remembered. */
class NotRemembered extends Error {
  readonly result: Result;
  constructor(result: Result) {
    super('not remembered');
    this.result = result;
  }
}

const withReplayedHeader = (result: Result): Result => ({
  ...result,
  headers: { ...result.headers, [IDEMPOTENT_REPLAYED_HEADER]: 'true' },
});

// One for every invocation: Powertools keeps the latest invocation's context in it for the
// in-progress expiry, and invocations running side by side all have the same 10 s deadline.
const config = new IdempotencyConfig({
  // Scoped to the caller: two key ids never share a record, whatever Idempotency-Key they send.
  eventKeyJmesPath: '[scope, key]',
  // Compared as parsed JSON: Powertools sorts object keys before hashing, white space is gone.
  payloadValidationJmesPath: 'body',
  expiresAfterSeconds: IDEMPOTENCY_WINDOW_SECONDS,
  hashFunction: 'sha256',
  responseHook: (response) => withReplayedHeader(response as unknown as Result) as unknown as typeof response,
});

const OWNS_RECORD = 'petstore.ownsIdempotencyRecord';
/**
 * Powertools 2.35's middleware deletes the record in onError even when its own `before`
 * refused the request: a 409 removed the lock of the request still running, a 422 the
 * stored 201 (powertools-lambda-typescript#5675, fixed after 2.35, the newest release).
 * As the fix does: only the request that took the record deletes it (here: releases it, which
 * would as well let a retry in beside the request still running), and only while its handler
 * has not answered.
 */
const ownRecordOnly = (inner: ReturnType<typeof makeHandlerIdempotent>): AttemptMiddleware => ({
  before: async (request) => {
    request.internal[OWNS_RECORD] = false;
    const replay = await inner.before?.(request);
    if (replay === undefined) request.internal[OWNS_RECORD] = true;
    return replay;
  },
  after: async (request) => {
    request.internal[OWNS_RECORD] = false;
    await inner.after?.(request);
  },
  onError: async (request) => {
    if (request.internal[OWNS_RECORD]) await inner.onError?.(request);
  },
});

let chain: ((attempt: Attempt, context: Context) => Promise<Result>) | undefined;
/** Built on first use: the table name comes from the environment. */
const idempotentCreate = () =>
  (chain ??= middy<Attempt, Result>({ timeoutEarlyInMillis: 0 }) // httpHandler's chain keeps the deadline
    .use(
      ownRecordOnly(
        makeHandlerIdempotent({
          persistenceStore: new ReservingPersistenceLayer(
            tableName(idempotencyTable),
            documentClient(traceDynamoDBCalls), // the records' calls in the trace, as the animals' are
          ),
          config,
          // Not the function's name (Powertools' default), which a redeploy may change.
          keyPrefix: 'createPet',
        }),
      ),
    )
    .handler(async ({ run, reservation }) => {
      if (!reservation.taken) throw new Error('the idempotency record was not taken');
      const result = await run(reservation.taken);
      if (result.statusCode !== 201) throw new NotRemembered(result);
      return result;
    }));

/** Powertools' refusals as the contract's errors; a DynamoDB fault under them as the 503 it is. */
export const contractError = (error: unknown): unknown => {
  if (!(error instanceof Error)) return error;
  switch (error.name) {
    case 'IdempotencyAlreadyInProgressError':
    // The record went away between our write and our read (its window over, deleted).
    case 'IdempotencyItemNotFoundError':
      return new ConflictError(`A request with this ${IDEMPOTENCY_KEY_HEADER} is still being processed; retry later`);
    case 'IdempotencyValidationError':
      return new UnprocessableEntityError(`This ${IDEMPOTENCY_KEY_HEADER} was already used with a different body`);
    case 'IdempotencyPersistenceLayerError':
      return isUnavailable(error.cause) ? new ServiceUnavailableError(error.cause) : error;
    default:
      return error;
  }
};

/**
 * Runs the create once per caller (`scope`), Idempotency-Key (`key`) and body: the part of
 * `idempotently` (idempotency.ts) that needs Powertools.
 */
export const runIdempotently = async (
  scope: string,
  key: string,
  context: Context,
  body: unknown,
  operation: IdempotentCreate,
): Promise<Result> => {
  let replayed = false;
  const run = async ({ petId, resumed }: NonNullable<Reservation['taken']>): Promise<Result> => {
    // An earlier attempt took this record and ended without completing it: it may have made the animal.
    const found = resumed ? await operation.find(petId) : undefined;
    replayed = found !== undefined;
    return found ?? operation.createAs(petId);
  };
  const reservation: Reservation = { newId: () => operation.newId() };
  try {
    const result = await idempotentCreate()({ scope, key, body, reservation, run }, context);
    return replayed ? withReplayedHeader(result) : result;
  } catch (error) {
    if (error instanceof NotRemembered) return error.result;
    throw contractError(error);
  }
};
