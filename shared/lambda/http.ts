// Reading REST (v1) proxy events and shaping proxy results.
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { z } from 'zod/mini';
import { BadRequestError, UnsupportedMediaTypeError, validationError } from '../api/errors.ts';
import { API_VERSION_PATH } from '../api/routes.ts';

export const json = (
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'Content-Type': 'application/json', ...headers },
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

export const bodyBytes = (event: APIGatewayProxyEvent): Buffer =>
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
      throw new BadRequestError(`${name} must be given at most once`, [
        { field: name, message: 'must be given at most once' },
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
const CHARSET_PARAMETER = /;\s*charset\s*=\s*"?([^";\s]*)/i;
/** `\uD800` to `\uDFFF`, the escapes of UTF-16 surrogates (a false alarm on `\\uD800` only costs the check). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
/** Strict: bytes that are not UTF-8 are an error, never a U+FFFD stored in their place. */
const utf8 = new TextDecoder('utf-8', { fatal: true });
const notUtf8 = () => new BadRequestError('request body must be UTF-8', [{ field: 'body', message: 'must be UTF-8' }]);

/** An `application/json` body (UTF-8, as JSON is) holding a JSON object, validated by `schema`. */
export const parseJsonBody = <S extends z.ZodMiniType>(event: APIGatewayProxyEvent, schema: S): z.output<S> => {
  const contentType = header(event, 'content-type')?.trim() ?? '';
  if (!JSON_MEDIA_TYPE.test(contentType)) throw new UnsupportedMediaTypeError();
  const charset = CHARSET_PARAMETER.exec(contentType)?.[1];
  if (charset !== undefined && charset.toLowerCase() !== 'utf-8') {
    throw new UnsupportedMediaTypeError('Content-Type must be application/json with no charset other than utf-8');
  }
  let text: string;
  try {
    text = utf8.decode(bodyBytes(event));
  } catch {
    throw notUtf8();
  }
  let wellFormed = true;
  let body: unknown;
  try {
    // An escape like `\ud800` parses to a lone surrogate, which no UTF-8 text can carry. Only a
    // text with such an escape can hold one, and only it pays for the reviver, which slows
    // JSON.parse several times over.
    body = SURROGATE_ESCAPE.test(text)
      ? JSON.parse(text, (name, value: unknown) => {
          if (!name.isWellFormed() || (typeof value === 'string' && !value.isWellFormed())) wellFormed = false;
          return value;
        })
      : JSON.parse(text);
  } catch {
    throw new BadRequestError('request body must be valid JSON', [{ field: 'body', message: 'must be valid JSON' }]);
  }
  if (!wellFormed) throw notUtf8();
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new BadRequestError('request body must be a JSON object', [
      { field: 'body', message: 'must be a JSON object' },
    ]);
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw validationError(parsed.error, 'body');
  return parsed.data;
};
