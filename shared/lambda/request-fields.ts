// What every line of a request says of its inputs, so that on-call can tell which requests
// fail without the code: the path and query parameters as the function received them, whether
// a cursor was sent and the position it resumes from (never the cursor itself: it is opaque to
// clients, and its text is nobody's business in a log), the function version that answered and
// the code's commit. Written onto its summary line and onto a fault's ERROR line alike
// (middleware.ts).
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { cursorResumesAfter } from '../domain/cursor.ts';
import type { RequestInputs } from '../observability/log-fields.ts';
import { sourceCommit } from '../observability/source-commit.ts';

/** The one query parameter never written: the paging cursor. */
const CURSOR = 'cursor';
/**
 * Query parameters are not secret by contract, but a client may still paste its key into one
 * (`?api_key=pet_…`): a value that looks like a key is written as this instead, so that no log
 * line ever holds one.
 */
const KEY_LIKE = /pet_[0-9A-Za-z]{32,}/;
export const REDACTED = '[key redacted]';

/** The shortest value that can hold a key: `pet_` and 32 characters. */
const KEY_LENGTH = 36;
const clean = (value: string): string =>
  value.length >= KEY_LENGTH && value.includes('pet_') && KEY_LIKE.test(value) ? REDACTED : value;

/** `{ status: "sold" }`; a repeated parameter as its values in order: `{ limit: ["1", "2"] }`. */
const queryOf = (event: APIGatewayProxyEvent): Record<string, string | string[]> | undefined => {
  const all = event.multiValueQueryStringParameters;
  if (!all) return undefined;
  let query: Record<string, string | string[]> | undefined;
  for (const name in all) {
    const values = all[name];
    if (name === CURSOR || !values?.length) continue;
    query ??= {};
    query[name] = values.length === 1 ? clean(values[0]!) : values.map(clean);
  }
  return query;
};

/**
 * The request's inputs, as its lines name them, written onto `line` (the line's own object, made for
 * it: no copy of the inputs is spread into it): fields absent when the request had none.
 */
export const addRequestInputs = <T extends object>(
  line: T,
  event: APIGatewayProxyEvent,
  context: Context,
): T & RequestInputs => {
  const all = event.multiValueQueryStringParameters;
  const cursors = all?.[CURSOR];
  const inputs = line as T & RequestInputs;
  inputs.cursorSent = cursors !== undefined && cursors.length > 0;
  inputs.executedVersion = context.functionVersion;
  inputs.commit = sourceCommit();
  if (event.pathParameters) {
    const parameters: Record<string, string> = {};
    for (const name in event.pathParameters) parameters[name] = clean(event.pathParameters[name] ?? '');
    inputs.pathParameters = parameters;
  }
  // Which parameters the request named, in a fixed order: listings of one shape group together.
  const names = all ? Object.keys(all) : undefined;
  if (names?.length) inputs.queryShape = names.sort().join('&');
  const query = queryOf(event);
  if (query) inputs.query = query;
  // As the cursor claims it, signature unchecked: a forged one is refused (400) all the same,
  // and its line says so by its status.
  const after = inputs.cursorSent ? cursorResumesAfter(cursors![0]!) : undefined;
  if (after !== undefined) inputs.cursorAfter = after;
  return inputs;
};

/** The request's inputs, as its lines name them: fields absent when the request had none. */
export const requestInputs = (event: APIGatewayProxyEvent, context: Context): RequestInputs =>
  addRequestInputs({}, event, context);
