// The OpenAPI document's building blocks: parameters from the zod schemas, the headers and
// error answers every operation shares, getPet's deprecation headers. tools/openapi.ts puts them
// together.
import * as z from 'zod/mini';
import { answers, MAX_BODY_BYTES, type Route, route } from '../shared/api/routes.ts';
import { type ErrorCode, responseSchemas } from '../shared/api/schemas.ts';
import { deprecationExamples, type Example, errorExamples, headerExamples } from './openapi-examples.ts';

export const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/** A reference to a schema of shared/api/schemas.ts, by the id it is registered under. */
export const schemaRef = (schema: z.ZodMiniType) => {
  const id = z.globalRegistry.get(schema)?.id;
  if (id === undefined) throw new Error('a schema without an id (shared/api/schemas.ts)');
  return ref(id);
};

/** A parameter's schema in OpenAPI 3.1's dialect (JSON Schema 2020-12), its named parts as components. */
export const parameterSchema = (schema: z.ZodMiniType): Record<string, unknown> => {
  const {
    $schema: _s,
    $defs: _d,
    ...rest
  } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  if (typeof rest.$ref === 'string') rest.$ref = rest.$ref.replace('#/$defs/', '#/components/schemas/');
  if (rest.type === 'integer') delete rest.pattern; // integers travel as strings; the document states their meaning
  // zod leaves a transformed schema's default out of its input form; the meaning has it (limit: 20).
  const { default: meaningDefault } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as {
    default?: unknown;
  };
  if (meaningDefault !== undefined) rest.default ??= meaningDefault;
  return rest;
};

export const parameters = <S extends Record<string, z.ZodMiniType>>(
  shape: S,
  location: 'query' | 'path',
  examples: Record<keyof S, unknown>,
) => {
  // Required as the schema's input says (one with a default is not): a path parameter always is.
  const { required = [] } = z.toJSONSchema(z.object(shape), { io: 'input', unrepresentable: 'any' }) as {
    required?: string[];
  };
  return Object.entries(shape).map(([name, schema]) => {
    const { description, ...rest } = parameterSchema(schema);
    const isRequired = location === 'path' || required.includes(name);
    return { name, in: location, required: isRequired, description, schema: rest, example: examples[name] };
  });
};

/** API Gateway's request ids, and the local stage's, are UUIDs. */
const REQUEST_ID_SCHEMA = { type: 'string', format: 'uuid', maxLength: 36 };
/** `<target>; rel="relation"`, the target a URI reference (a next link carries a cursor of at most 256 characters). */
export const LINK_SCHEMA = { type: 'string', maxLength: 2048, pattern: '^<[^<>\\s]*>; rel="[a-z-]+"$' };

export const header = (description: string, example: unknown, schema: object = { type: 'string' }) => ({
  description,
  schema,
  example,
});
export const requestIdHeader = {
  'x-amzn-RequestId': header('The request id, also in every Error body.', headerExamples.requestId, REQUEST_ID_SCHEMA),
};
/** On every answer of an operation once the caller's key is known (all but the 401). */
export const rateLimitHeader = {
  'RateLimit-Policy': header(
    "draft-ietf-httpapi-ratelimit-headers: the caller's key's limits, one quota policy each, `q` requests per `w` " +
      'seconds: `burst` (at once), `steady` (every second after), `daily` (per UTC day, when the key has a quota).',
    headerExamples.rateLimitPolicy,
    { type: 'string', maxLength: 200, pattern: '^"[a-z]+";q=[0-9]+;w=[0-9]+(, "[a-z]+";q=[0-9]+;w=[0-9]+)*$' },
  ),
};
/** An error response: the code it carries leads its description, so the reference shows it at a glance. */
export const error = (
  code: ErrorCode,
  description: string,
  examples: Record<string, Example>,
  headers: Record<string, object> = {},
) => ({
  description: `\`${code}\`: ${description}`,
  headers: { ...requestIdHeader, ...headers },
  content: { 'application/json': { schema: ref('Error'), examples } },
});
/** A 4xx a function answers: it names the key's limits (the gateway's own 403 and 429 cannot). */
export const keyedError = (
  code: ErrorCode,
  description: string,
  examples: Record<string, Example>,
  headers: Record<string, object> = {},
) => error(code, description, examples, { ...rateLimitHeader, ...headers });
export const retryAfter = {
  'Retry-After': header('Seconds to wait before retrying.', headerExamples.retryAfter, {
    type: 'integer',
    minimum: 0,
    maximum: 86_400,
  }),
};
export const commonErrors = {
  '401': error('UNAUTHORIZED', 'API key missing, malformed, unknown, revoked or expired.', errorExamples.unauthorized, {
    'WWW-Authenticate': header('Always `Bearer`.', headerExamples.wwwAuthenticate, {
      type: 'string',
      enum: ['Bearer'],
    }),
  }),
  '429': error(
    'TOO_MANY_REQUESTS',
    'The key’s own rate, burst or daily quota, or the stage’s throttling limit, was exceeded.',
    errorExamples.tooManyRequests,
    retryAfter,
  ),
  '500': error('INTERNAL_ERROR', 'A fault of ours; quote the requestId.', errorExamples.internalError),
  '502': error(
    'BAD_GATEWAY',
    'The function failed before answering (crashed, was throttled, or answered invalidly).',
    errorExamples.badGateway,
  ),
  '503': error(
    'SERVICE_UNAVAILABLE',
    'The database is throttling or unreachable.',
    errorExamples.serviceUnavailable,
    retryAfter,
  ),
  '504': error('GATEWAY_TIMEOUT', 'The function did not answer in time.', errorExamples.gatewayTimeout),
};

const deprecationHeaders = {
  Deprecation: header(
    'RFC 9745: when this operation was deprecated, as `@<unix-seconds>`.',
    deprecationExamples.deprecation,
    { type: 'string', maxLength: 20, pattern: '^@[0-9]+$' },
  ),
  Sunset: header('RFC 8594: when this operation stops working (an HTTP date).', deprecationExamples.sunset, {
    type: 'string',
    maxLength: 29,
    pattern: '^[A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$',
  }),
  Link: header(
    '`<…/pets>; rel="successor-version"`: the listing that replaces this operation.',
    deprecationExamples.successorLink,
    LINK_SCHEMA,
  ),
};

const sunset = route('getPet').deprecation?.sunset;
if (!sunset) throw new Error('getPet is deprecated: its route must say when it is removed');
/** `2030-12-05`: the day, as the route table states it. */
export const sunsetDay = sunset.toISOString().slice(0, 10);

/**
 * What each operation's document says that its route entry cannot: the words, the examples,
 * the success answer's own headers and its own refusals. The generic answers (400 for any input,
 * 403 for a write, 404 for a path parameter, 413 and 415 for a body, the common ones, the
 * deprecation headers) come from the entry (`responsesOf`).
 */
export interface OperationDoc {
  readonly description: string;
  /** An example of each query parameter, when its route entry names a `query` schema (its parameters come from it). */
  readonly queryExamples?: Readonly<Record<string, unknown>>;
  /** Its path and header parameters. */
  readonly parameters?: readonly object[];
  /** The body's examples, when the route takes one. */
  readonly bodyExamples?: Record<string, Example>;
  readonly success: {
    readonly description: string;
    readonly headers?: Record<string, object>;
    /** Its body's examples, when its route entry names a `response` schema (not for a 204). */
    readonly examples?: Record<string, Example>;
  };
  /** What the 400 says, when the route takes input. */
  readonly badRequest?: { readonly description: string; readonly examples: Record<string, Example> };
  /** Its own refusals: exactly those its route entry's `statuses` name after the success. */
  readonly refusals?: Readonly<Record<number, object>>;
}

/**
 * Every answer of an operation: its success and its own refusals as its document words them,
 * and the generic answers its route entry implies (shared/api/routes.ts, `answers`), each with
 * the deprecation headers when the operation is deprecated.
 */
export const responsesOf = (r: Route, doc: Pick<OperationDoc, 'success' | 'badRequest' | 'refusals'>) => {
  const deprecation = r.deprecation ? deprecationHeaders : {};
  const [success, ...refusals] = r.statuses;
  const own = Object.keys(doc.refusals ?? {}).map(Number);
  if (own.join() !== refusals.join())
    throw new Error(`${r.operationId}: its document words the refusals ${own}, its route entry says ${refusals}`);
  const generic = new Set(answers(r));
  const { examples } = doc.success;
  if ((r.response !== undefined) !== (examples !== undefined))
    throw new Error(`${r.operationId}: success examples are worded exactly when its route entry names a response`);
  if (generic.has(400) !== (doc.badRequest !== undefined))
    throw new Error(`${r.operationId}: a 400 (badRequest) is worded exactly when its route entry takes input`);
  return {
    [success]: {
      description: doc.success.description,
      headers: { ...requestIdHeader, ...rateLimitHeader, ...doc.success.headers, ...deprecation },
      // A 204 declares no content: it has no body.
      ...(r.response !== undefined && {
        content: { 'application/json': { schema: schemaRef(responseSchemas[r.response]), examples } },
      }),
    },
    ...(doc.badRequest && {
      400: keyedError('BAD_REQUEST', doc.badRequest.description, doc.badRequest.examples, deprecation),
    }),
    ...(generic.has(403) && {
      403: error(
        'FORBIDDEN',
        "The key's scope does not allow this operation: a `read` key may call the GET operations only.",
        errorExamples.forbidden,
      ),
    }),
    ...(generic.has(404) && {
      404: keyedError('NOT_FOUND', 'No animal has that id.', errorExamples.notFound, deprecation),
    }),
    ...(generic.has(413) && {
      413: keyedError(
        'PAYLOAD_TOO_LARGE',
        `The body is larger than ${MAX_BODY_BYTES} bytes.`,
        errorExamples.payloadTooLarge,
      ),
      415: keyedError(
        'UNSUPPORTED_MEDIA_TYPE',
        'Content-Type is not application/json, or its charset is not utf-8.',
        errorExamples.unsupportedMediaType,
      ),
    }),
    ...doc.refusals,
    ...commonErrors,
  };
};
