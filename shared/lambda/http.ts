// Reading REST (v1) proxy events and shaping proxy results.
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { z } from 'zod/mini';
import { escapeControlCharacters } from '../api/control-characters.ts';
import { BadRequestError, UnsupportedMediaTypeError, validationError } from '../api/errors.ts';
import { API_VERSION_PATH } from '../api/routes.ts';

export const json = (statusCode: number, body: unknown, headers?: Record<string, string>): APIGatewayProxyResult => ({
  statusCode,
  // No spread of an empty object for the many answers that add no header.
  headers:
    headers === undefined ? { 'Content-Type': 'application/json' } : { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

// Both run on every request (the Authorization check): a key of another length is never
// lower-cased, and nothing is allocated but the answer.

/** A request header by name, in any case (API Gateway keeps the client's spelling). */
const header = (event: APIGatewayProxyEvent, name: string): string | undefined => {
  const wanted = name.toLowerCase();
  const headers = event.headers ?? {};
  for (const key in headers) {
    if (key.length === wanted.length && key.toLowerCase() === wanted) return headers[key] ?? undefined;
  }
  return undefined;
};

/** Every value of a request header, in any case: a header sent twice has two. */
export const headerValues = (event: APIGatewayProxyEvent, name: string): string[] => {
  const wanted = name.toLowerCase();
  const headers = event.multiValueHeaders ?? {};
  const values: string[] = [];
  for (const key in headers) {
    if (key.length === wanted.length && key.toLowerCase() === wanted) values.push(...(headers[key] ?? []));
  }
  return values;
};

/** How many values a request header has, in any case: as headerValues' length, without the array. */
export const headerCount = (event: APIGatewayProxyEvent, name: string): number => {
  const wanted = name.toLowerCase();
  const headers = event.multiValueHeaders ?? {};
  let count = 0;
  for (const key in headers) {
    if (key.length === wanted.length && key.toLowerCase() === wanted) count += headers[key]?.length ?? 0;
  }
  return count;
};

const bodyBytes = (event: APIGatewayProxyEvent): Buffer =>
  Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');

/**
 * The path of the API's version root as the client addressed it, e.g. `/staging/v1`
 * deployed or `/v1` locally, for links the client resolves against its request URL.
 */
export const versionRoot = (event: APIGatewayProxyEvent): string => {
  const clientPath = event.requestContext.path ?? event.path;
  const stagePrefix = clientPath.endsWith(event.path) ? clientPath.slice(0, clientPath.length - event.path.length) : '';
  return `${stagePrefix}${API_VERSION_PATH}`;
};

/** Query parameters, each at most once, validated by `schema`. */
export const parseQuery = <S extends z.ZodMiniType>(event: APIGatewayProxyEvent, schema: S): z.output<S> => {
  const single: Record<string, string> = {};
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    if (!values?.length) continue;
    if (values.length > 1) {
      const field = escapeControlCharacters(name); // the client's text, echoed
      throw new BadRequestError(`${field} must be given at most once`, [
        { field, message: 'must be given at most once' },
      ]);
    }
    single[name] = values[0]!;
  }
  const parsed = schema.safeParse(single);
  if (!parsed.success) throw validationError(parsed.error, 'query');
  return parsed.data;
};

export const parsePathParameters = <S extends z.ZodMiniType>(event: APIGatewayProxyEvent, schema: S): z.output<S> => {
  const parsed = schema.safeParse(event.pathParameters ?? {});
  if (!parsed.success) throw validationError(parsed.error, 'path');
  return parsed.data;
};

const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;
/** Every charset parameter, however many: a second one must not name what the first does not. */
const CHARSET_PARAMETERS = /;\s*charset\s*=\s*"?([^";\s]*)/gi;
/** `\uD800` to `\uDFFF`, the escapes of UTF-16 surrogates (a false alarm on `\\uD800` only costs the check). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
/**
 * A number literal with a fraction or an exponent, or more digits than a double holds exactly:
 * the only ones whose value a double may round (a false alarm inside a string only costs the check).
 */
const ROUNDABLE_NUMBER = /[0-9][.eE]|[0-9]{16}/;
const NUMBER_LITERAL = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;
/** Strict: bytes that are not UTF-8 are an error, never a U+FFFD stored in their place. */
const utf8 = new TextDecoder('utf-8', { fatal: true });
const notUtf8 = () => new BadRequestError('request body must be UTF-8', [{ field: 'body', message: 'must be UTF-8' }]);

/**
 * True when the JSON number literal `source` is exactly the integer `value`: `7.0`, `7e0` and
 * `70e-1` are 7; `1.0000000000000001` is not 1, though JSON.parse rounds it to 1.
 */
const isExactInteger = (source: string, value: number): boolean => {
  const match = NUMBER_LITERAL.exec(source);
  if (!match) return false;
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  const digits = `${whole}${fraction}`.replace(/^0+/, '');
  if (!digits) return value === 0;
  // The literal is digits × 10^shift.
  const shift = Number(exponent) - fraction.length;
  let integer: bigint;
  if (shift >= 0) {
    if (digits.length + shift > 400) return false; // past every double
    integer = BigInt(digits) * 10n ** BigInt(shift);
  } else {
    const point = digits.length + shift;
    if (!/^0*$/.test(digits.slice(Math.max(point, 0)))) return false; // a fraction is left
    integer = point > 0 ? BigInt(digits.slice(0, point)) : 0n;
  }
  return BigInt(value) === (sign ? -integer : integer);
};

/** What JSON.parse (Node 24) tells a reviver about a primitive: its text as sent. */
type ReviverContext = { source?: string };

/**
 * The body parsed as sent, or undefined when it is not JSON. Numbers are judged by their literal,
 * not their double: one that rounds to an integer it is not (`1.0000000000000001`) becomes NaN,
 * which no schema takes for an integer. A lone surrogate escape (`\ud800`), which no UTF-8 text can
 * carry, sets `wellFormed.value` to false. Only a text that may hold either pays for the reviver,
 * which slows JSON.parse several times over.
 */
const parseJson = (text: string, wellFormed: { value: boolean }): unknown => {
  const surrogates = SURROGATE_ESCAPE.test(text);
  if (!surrogates && !ROUNDABLE_NUMBER.test(text)) return JSON.parse(text);
  return JSON.parse(text, (name, value: unknown, context?: ReviverContext) => {
    if (surrogates && (!name.isWellFormed() || (typeof value === 'string' && !value.isWellFormed())))
      wellFormed.value = false;
    if (typeof value === 'number' && Number.isInteger(value) && context?.source !== undefined)
      return isExactInteger(context.source, value) ? value : Number.NaN;
    return value;
  });
};

/** A request body as parsed JSON (`json`, what an Idempotency-Key is bound to) and as validated (`data`). */
interface ParsedBody<T> {
  readonly json: unknown;
  readonly data: T;
}

/** An `application/json` body (UTF-8, as JSON is) holding a JSON object, validated by `schema`. */
export const parseJsonBody = <S extends z.ZodMiniType>(
  event: APIGatewayProxyEvent,
  schema: S,
): ParsedBody<z.output<S>> => {
  // Two Content-Type headers: `headers` holds only the last (API Gateway's proxy event) where
  // another reader may take the first. The body's type is then unknown, whichever is valid.
  if (headerCount(event, 'content-type') > 1) {
    throw new BadRequestError('Content-Type must be sent once', [
      { field: 'Content-Type', message: 'must be sent once' },
    ]);
  }
  const contentType = header(event, 'content-type')?.trim() ?? '';
  if (!JSON_MEDIA_TYPE.test(contentType)) throw new UnsupportedMediaTypeError();
  for (const [, charset = ''] of contentType.matchAll(CHARSET_PARAMETERS)) {
    if (charset.toLowerCase() !== 'utf-8')
      throw new UnsupportedMediaTypeError('Content-Type must be application/json with no charset other than utf-8');
  }
  let text: string;
  try {
    // TextDecoder drops a leading byte order mark, which JSON.parse would refuse.
    text = utf8.decode(bodyBytes(event));
  } catch {
    throw notUtf8();
  }
  const wellFormed = { value: true };
  let body: unknown;
  try {
    body = parseJson(text, wellFormed);
  } catch {
    throw new BadRequestError('request body must be valid JSON', [{ field: 'body', message: 'must be valid JSON' }]);
  }
  if (!wellFormed.value) throw notUtf8();
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new BadRequestError('request body must be a JSON object', [
      { field: 'body', message: 'must be a JSON object' },
    ]);
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw validationError(parsed.error, 'body');
  return { json: body, data: parsed.data };
};
