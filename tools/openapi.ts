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

const header = (description: string, example: unknown, schema: object = { type: 'string' }) => ({
  description,
  schema,
  example,
});
const requestIdHeader = {
  'x-amzn-RequestId': header('The request id, also in every Error body.', headerExamples.requestId),
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
const retryAfter = {
  'Retry-After': header('Seconds to wait before retrying.', headerExamples.retryAfter, { type: 'integer', minimum: 0 }),
};
const commonErrors = {
  '401': error('UNAUTHORIZED', 'API key missing, malformed, unknown or revoked.', errorExamples.unauthorized, {
    'WWW-Authenticate': header('Always `Bearer`.', headerExamples.wwwAuthenticate),
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
    { type: 'string', pattern: '^@[0-9]+$' },
  ),
  Sunset: header('RFC 8594: when this operation stops working (an HTTP date).', deprecationExamples.sunset),
  Link: header(
    '`<…/pets>; rel="successor-version"`: the listing that replaces this operation.',
    deprecationExamples.successorLink,
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
          Link: header('`<…>; rel="next"` when more animals match.', headerExamples.nextLink),
        },
        content: { 'application/json': { schema: ref('Pets'), examples: petExamples.page } },
      },
      '400': error(
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
          schema: { ...schema, pattern: IDEMPOTENCY_KEY_PATTERN.source },
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
          Location: header('Path of the new animal.', headerExamples.location),
          [IDEMPOTENT_REPLAYED_HEADER]: header(
            '`true` when this repeats the response to an earlier request with the same Idempotency-Key.',
            'true',
            { type: 'string', enum: ['true'] },
          ),
        },
        content: { 'application/json': { schema: ref('Pet'), examples: petExamples.created } },
      },
      '400': error(
        'BAD_REQUEST',
        'The body is not a JSON object, misses required fields, has unknown fields or invalid values.',
        errorExamples.createPetBadRequest,
      ),
      '413': error(
        'PAYLOAD_TOO_LARGE',
        `The body is larger than ${MAX_BODY_BYTES} bytes.`,
        errorExamples.payloadTooLarge,
      ),
      '415': error(
        'UNSUPPORTED_MEDIA_TYPE',
        'Content-Type is not application/json, or its charset is not utf-8.',
        errorExamples.unsupportedMediaType,
      ),
      '409': error(
        'CONFLICT',
        'A request with the same Idempotency-Key is still being processed.',
        errorExamples.conflict,
        retryAfter,
      ),
      '422': error(
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
        headers: { ...requestIdHeader, ...deprecationHeaders },
        content: { 'application/json': { schema: ref('Pet'), examples: petExamples.pet } },
      },
      '400': error(
        'BAD_REQUEST',
        'petId is not a positive integer of at most 2^53−1.',
        errorExamples.getPetBadRequest,
        deprecationHeaders,
      ),
      '404': error('NOT_FOUND', 'No animal has that id.', errorExamples.notFound, deprecationHeaders),
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
  return {
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
      },
      { url: `http://${LOCAL_DEFAULTS.host}:${LOCAL_DEFAULTS.port}${API_VERSION_PATH}`, description: 'npm start' },
    ],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key from the key tool: `pet_…`.' },
      },
      schemas: Object.fromEntries(
        Object.entries(schemas).map(([id, { $schema: _s, $id: _i, ...schema }]) => [id, schema]),
      ),
    },
  };
};

if (import.meta.main) console.log(JSON.stringify(openApiDocument(), null, 2));
