// Safe retries of a create (docs/api.md, "Safe retries"): a request without an Idempotency-Key
// just creates; one with a key runs through idempotent-create.ts (Powertools' idempotency
// utility and the record that reserves the animal's id), which is imported on the first such
// request, not at init: its modules are ~3 ms of a cold start's CPU that a create without the
// header never uses (docs/performance.md, "Where createPet's cold start goes"). The stack
// bundles with code splitting, so that module is a chunk of its own.
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { validationError } from '../api/errors.ts';
import { IDEMPOTENCY_KEY_HEADER, IdempotencyKey } from '../api/idempotency.ts';
import { headerValues } from './http.ts';
import { keyIdOf } from './middleware.ts';

type Result = APIGatewayProxyResult;

/** A create that can be made exactly once: under an id chosen beforehand, and found again by it. */
export interface IdempotentCreate {
  /** Creates without an Idempotency-Key: any fresh id. */
  create(): Promise<Result>;
  /** A fresh id, for the record to name before anything is written. */
  newId(): Promise<number>;
  /** Creates under `id`; never overwrites another animal. */
  createAs(id: number): Promise<Result>;
  /** The 201 of the animal an earlier attempt made under `id`; undefined when it made none. */
  find(id: number): Promise<Result | undefined>;
}

/** The request's Idempotency-Key, unquoted; undefined without one; 400 when malformed or sent twice. */
const idempotencyKeyOf = (event: APIGatewayProxyEvent): string | undefined => {
  const values = headerValues(event, IDEMPOTENCY_KEY_HEADER);
  if (!values.length) return undefined;
  const parsed = IdempotencyKey.safeParse(values.length === 1 ? values[0] : null);
  if (!parsed.success) throw validationError(parsed.error, IDEMPOTENCY_KEY_HEADER);
  return parsed.data;
};

/**
 * Runs the create once per caller, Idempotency-Key and body; without the header, just runs it.
 * Call it after the body was validated (`body`: as parsed): a malformed request is a 400
 * whatever its key.
 */
export const idempotently = async (
  event: APIGatewayProxyEvent,
  context: Context,
  body: unknown,
  operation: IdempotentCreate,
): Promise<Result> => {
  const key = idempotencyKeyOf(event);
  if (key === undefined) return operation.create();
  const scope = keyIdOf(event);
  if (!scope) throw new Error('no key id from the authorizer to scope the Idempotency-Key by');
  const { runIdempotently } = await import('./idempotent-create.ts');
  return runIdempotently(scope, key, context, body, operation);
};
