// The OpenAPI 3.1 document, generated from the route table and the zod schemas.
// `npm run openapi` writes it to openapi.json; a test fails when that file is stale.
import * as z from 'zod/mini';
import { LOCAL_DEFAULTS } from '../infra/local/config.ts';
import { DEPLOYED_STAGES } from '../infra/stages.ts';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_PATTERN,
  IDEMPOTENCY_WINDOW_SECONDS,
  IDEMPOTENT_REPLAYED_HEADER,
  IdempotencyKey,
} from '../shared/api/idempotency.ts';
import { API_VERSION_PATH, type OperationId, route, routes } from '../shared/api/routes.ts';
import { type ErrorCode, ListPetsQuery, PetIdParams } from '../shared/api/schemas.ts';
import { AUTHORIZATION_PATTERN } from '../shared/domain/api-keys.ts';
import { MAX_BODY_BYTES } from '../shared/lambda/middleware.ts';
import {
  deprecationExamples,
  type Example,
  errorExamples,
  headerExamples,
  parameterExamples,
  petExamples,
} from './openapi-examples.ts';
import { guide } from './openapi-guide.ts';

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/** A parameter's schema in OpenAPI 3.1's dialect (JSON Schema 2020-12), its named parts as components. */
const parameterSchema = (schema: z.ZodMiniType): Record<string, unknown> => {
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

const parameters = <S extends Record<string, z.ZodMiniType>>(
  shape: S,
  location: 'query' | 'path',
  examples: Record<keyof S, unknown>,
) =>
  Object.entries(shape).map(([name, schema]) => {
    const { description, ...rest } = parameterSchema(schema);
    return { name, in: location, required: location === 'path', description, schema: rest, example: examples[name] };
  });

/** API Gateway's request ids, and the local stage's, are UUIDs. */
const REQUEST_ID_SCHEMA = { type: 'string', format: 'uuid', maxLength: 36 };
/** `<target>; rel="relation"`, the target a URI reference (a next link carries a cursor of at most 256 characters). */
const LINK_SCHEMA = { type: 'string', maxLength: 2048, pattern: '^<[^<>\\s]*>; rel="[a-z-]+"$' };

const header = (description: string, example: unknown, schema: object = { type: 'string' }) => ({
  description,
  schema,
  example,
});
const requestIdHeader = {
  'x-amzn-RequestId': header('The request id, also in every Error body.', headerExamples.requestId, REQUEST_ID_SCHEMA),
};
/** On every answer of an operation once the caller's key is known (all but the 401). */
const rateLimitHeader = {
  'RateLimit-Policy': header(
    "draft-ietf-httpapi-ratelimit-headers: the caller's key's limits, one quota policy each, `q` requests per `w` " +
      'seconds: `burst` (at once), `steady` (every second after), `daily` (per UTC day, when the key has a quota).',
    headerExamples.rateLimitPolicy,
    { type: 'string', maxLength: 200, pattern: '^"[a-z]+";q=[0-9]+;w=[0-9]+(, "[a-z]+";q=[0-9]+;w=[0-9]+)*$' },
  ),
};
/** An error response: the code it carries leads its description, so the reference shows it at a glance. */
const error = (
  code: ErrorCode,
  description: string,
  examples: Record<string, Example>,
  headers: Record<string, object> = {},
) => ({
  description: `\`${code}\`: ${description}`,
  headers: { ...requestIdHeader, ...headers },
  content: { 'application/json': { schema: ref('Error'), examples } },
});
/** A 4xx a function (or, for 403 and 429, the gateway on the key's behalf) answers: it names the key's limits. */
const keyedError = (
  code: ErrorCode,
  description: string,
  examples: Record<string, Example>,
  headers: Record<string, object> = {},
) => error(code, description, examples, { ...rateLimitHeader, ...headers });
const retryAfter = {
  'Retry-After': header('Seconds to wait before retrying.', headerExamples.retryAfter, {
    type: 'integer',
    minimum: 0,
    maximum: 86_400,
  }),
};
const commonErrors = {
  '401': error('UNAUTHORIZED', 'API key missing, malformed, unknown, revoked or expired.', errorExamples.unauthorized, {
    'WWW-Authenticate': header('Always `Bearer`.', headerExamples.wwwAuthenticate, {
      type: 'string',
      enum: ['Bearer'],
    }),
  }),
  '429': keyedError(
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
const sunsetDay = sunset.toISOString().slice(0, 10);

const operations: Record<OperationId, object> = {
  listPets: {
    description:
      'Animals ordered by id when filtered by status. When more match, the `Link` header carries `rel="next"`: ' +
      'the same listing with an opaque `cursor`, relative to the request URL. Following `next` links from the ' +
      'first page visits every matching animal once; the last page has no `next`.',
    parameters: parameters(ListPetsQuery.shape, 'query', parameterExamples.listPets),
    responses: {
      '200': {
        description: 'A page of animals; `[]` when nothing matches.',
        headers: {
          ...requestIdHeader,
          ...rateLimitHeader,
          Link: header('`<…>; rel="next"` when more animals match.', headerExamples.nextLink, LINK_SCHEMA),
        },
        content: { 'application/json': { schema: ref('Pets'), examples: petExamples.page } },
      },
      '400': keyedError(
        'BAD_REQUEST',
        'A query parameter or the cursor is malformed or out of range.',
        errorExamples.listPetsBadRequest,
      ),
      ...commonErrors,
    },
  },
  createPet: {
    description:
      'The service assigns the id. `status` defaults to `available`. With an `Idempotency-Key`, a retry is safe: ' +
      `for ${IDEMPOTENCY_WINDOW_SECONDS / 3600} hours after a create succeeded, the same key with the same body ` +
      '(as parsed JSON) creates nothing and gets the first 201 again, marked `Idempotent-Replayed: true`. ' +
      'Keys are per API key; only a 201 is remembered.',
    parameters: [
      {
        name: IDEMPOTENCY_KEY_HEADER,
        in: 'header',
        required: false,
        ...(({ description, ...schema }) => ({
          description,
          // As sent: the key, or the key in double quotes (the draft's form).
          schema: {
            ...schema,
            minLength: 1,
            maxLength: 257,
            pattern: `^(?:${IDEMPOTENCY_KEY_PATTERN.source.slice(1, -1)}|"${IDEMPOTENCY_KEY_PATTERN.source.slice(1, -1)}")$`,
          },
        }))(parameterSchema(IdempotencyKey)),
        example: headerExamples.idempotencyKey,
      },
    ],
    requestBody: {
      required: true,
      content: { 'application/json': { schema: ref('NewPet'), examples: petExamples.newPet } },
    },
    responses: {
      '201': {
        description: 'The created animal.',
        headers: {
          ...requestIdHeader,
          ...rateLimitHeader,
          Location: header('Path of the new animal.', headerExamples.location, {
            type: 'string',
            format: 'uri-reference',
            maxLength: 100,
          }),
          [IDEMPOTENT_REPLAYED_HEADER]: header(
            '`true` when this repeats the response to an earlier request with the same Idempotency-Key.',
            'true',
            { type: 'string', enum: ['true'] },
          ),
        },
        content: { 'application/json': { schema: ref('Pet'), examples: petExamples.created } },
      },
      '400': keyedError(
        'BAD_REQUEST',
        'The body is not a JSON object, misses required fields, has unknown fields or invalid values.',
        errorExamples.createPetBadRequest,
      ),
      '403': keyedError(
        'FORBIDDEN',
        "The key's scope does not allow this operation: a `read` key may call the GET operations only.",
        errorExamples.forbidden,
      ),
      '413': keyedError(
        'PAYLOAD_TOO_LARGE',
        `The body is larger than ${MAX_BODY_BYTES} bytes.`,
        errorExamples.payloadTooLarge,
      ),
      '415': keyedError(
        'UNSUPPORTED_MEDIA_TYPE',
        'Content-Type is not application/json, or its charset is not utf-8.',
        errorExamples.unsupportedMediaType,
      ),
      '409': keyedError(
        'CONFLICT',
        'A request with the same Idempotency-Key is still being processed.',
        errorExamples.conflict,
        retryAfter,
      ),
      '422': keyedError(
        'UNPROCESSABLE_ENTITY',
        'The Idempotency-Key was already used with a different body.',
        errorExamples.unprocessableEntity,
      ),
      ...commonErrors,
    },
  },
  getPet: {
    description: `Deprecated: removed on ${sunsetDay}. Use GET /pets with the status filter.`,
    parameters: parameters(PetIdParams.shape, 'path', parameterExamples.getPet),
    responses: {
      '200': {
        description: 'The animal.',
        headers: { ...requestIdHeader, ...rateLimitHeader, ...deprecationHeaders },
        content: { 'application/json': { schema: ref('Pet'), examples: petExamples.pet } },
      },
      '400': keyedError(
        'BAD_REQUEST',
        'petId is not a positive integer of at most 2^53−1.',
        errorExamples.getPetBadRequest,
        deprecationHeaders,
      ),
      '404': keyedError('NOT_FOUND', 'No animal has that id.', errorExamples.notFound, deprecationHeaders),
      ...commonErrors,
    },
  },
};

export const openApiDocument = () => {
  const { schemas } = z.toJSONSchema(z.globalRegistry, {
    io: 'input',
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, Record<string, unknown>> };
  const paths: Record<string, Record<string, object>> = {};
  for (const route of routes) {
    paths[route.path] = {
      ...paths[route.path],
      [route.method.toLowerCase()]: {
        operationId: route.operationId,
        summary: route.summary,
        ...(route.deprecation && { deprecated: true }),
        ...operations[route.operationId],
      },
    };
  }
  return withIntegerFormats({
    openapi: '3.1.0',
    info: {
      title: 'Pet Store API',
      version: '1.0.0',
      description: guide,
    },
    servers: [
      {
        url: `https://{apiId}.execute-api.{region}.amazonaws.com/{stage}${API_VERSION_PATH}`,
        variables: {
          apiId: { default: 'api-id' },
          region: { default: 'us-east-1' },
          stage: { default: DEPLOYED_STAGES[0], enum: [...DEPLOYED_STAGES] },
        },
        description: `A deployed stage: ${DEPLOYED_STAGES.join(' or ')}`,
        'x-internal': false,
      },
      {
        url: `http://${LOCAL_DEFAULTS.host}:${LOCAL_DEFAULTS.port}${API_VERSION_PATH}`,
        description: 'Stage local (npm start), on this machine only',
        'x-internal': true,
      },
    ],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'pet_ followed by at least 32 base62 characters',
          description: `An API key from the key tool: \`pet_…\` (${AUTHORIZATION_PATTERN}).`,
        },
      },
      schemas: Object.fromEntries(
        Object.entries(schemas).map(([id, { $schema: _s, $id: _i, ...schema }]) => [id, schema]),
      ),
    },
  });
};

/**
 * Every integer schema of the document with its format, from its bounds: `int32` when it fits
 * in 32 bits, else `int64` (ids and category ids reach 2^53−1).
 */
const withIntegerFormats = <T>(node: T): T => {
  if (Array.isArray(node)) return node.map(withIntegerFormats) as T;
  if (node === null || typeof node !== 'object') return node;
  const copy = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, withIntegerFormats(value)]));
  if (copy.type === 'integer' && copy.format === undefined) {
    const fits32 = (n: unknown) => typeof n === 'number' && Math.abs(n) <= 2 ** 31 - 1;
    copy.format = fits32(copy.minimum) && fits32(copy.maximum) ? 'int32' : 'int64';
  }
  return copy as T;
};

if (import.meta.main) console.log(JSON.stringify(openApiDocument(), null, 2));
