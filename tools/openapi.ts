// The OpenAPI 3.1 document, generated from the route table and the zod schemas.
// `npm run openapi` writes it to openapi.json; a test fails when that file is stale.
import * as z from 'zod';
import { LOCAL_DEFAULTS } from '../infra/local/config.ts';
import { DEPLOYED_STAGES } from '../infra/stages.ts';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_PATTERN,
  IDEMPOTENT_REPLAYED_HEADER,
  IdempotencyKey,
} from '../shared/api/idempotency.ts';
import { API_VERSION_PATH, type OperationId, route, routes } from '../shared/api/routes.ts';
import { ListPetsQuery, PetIdParams } from '../shared/api/schemas.ts';
import { MAX_BODY_BYTES } from '../shared/lambda/middleware.ts';

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/** A parameter's schema in OpenAPI 3.1's dialect (JSON Schema 2020-12), its named parts as components. */
const parameterSchema = (schema: z.ZodType): Record<string, unknown> => {
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

const parameters = (shape: Record<string, z.ZodType>, location: 'query' | 'path') =>
  Object.entries(shape).map(([name, schema]) => {
    const { description, ...rest } = parameterSchema(schema);
    return { name, in: location, required: location === 'path', description, schema: rest };
  });

const header = (description: string, schema: object = { type: 'string' }) => ({ description, schema });
const requestIdHeader = { 'x-amzn-RequestId': header('The request id, also in every Error body.') };
const error = (description: string, headers: Record<string, object> = {}) => ({
  description,
  headers: { ...requestIdHeader, ...headers },
  content: { 'application/json': { schema: ref('Error') } },
});
const retryAfter = { 'Retry-After': header('Seconds to wait before retrying.', { type: 'integer' }) };
const commonErrors = {
  '401': error('API key missing, malformed, unknown or revoked.', { 'WWW-Authenticate': header('Always `Bearer`.') }),
  '429': error('The key’s own rate, burst or daily quota, or the stage’s throttling limit, was exceeded.', retryAfter),
  '500': error('A fault of ours; quote the requestId.'),
  '503': error('The database is throttling or unreachable.', retryAfter),
  '504': error('The function did not answer in time.'),
};

const deprecationHeaders = {
  Deprecation: header('RFC 9745: when this operation was deprecated, as `@<unix-seconds>`.'),
  Sunset: header('RFC 8594: when this operation stops working.'),
  Link: header('`<…/pets>; rel="successor-version"`: the listing that replaces this operation.'),
};

const sunset = route('getPet').deprecation?.sunset;
if (!sunset) throw new Error('getPet is deprecated: its route must say when it is removed');
/** `2030-12-05`: the day, as the route table states it. */
const sunsetDay = sunset.toISOString().slice(0, 10);

const operations: Record<OperationId, object> = {
  listPets: {
    description:
      'Animals ordered by id when filtered by status. When more match, the `Link` header carries `rel="next"`, the same listing with an opaque `cursor`.',
    parameters: parameters(ListPetsQuery.shape, 'query'),
    responses: {
      '200': {
        description: 'A page of animals; `[]` when nothing matches.',
        headers: { ...requestIdHeader, Link: header('`<…>; rel="next"` when more animals match.') },
        content: { 'application/json': { schema: ref('Pets') } },
      },
      '400': error('A query parameter or the cursor is malformed or out of range.'),
      ...commonErrors,
    },
  },
  createPet: {
    description:
      'The service assigns the id. `status` defaults to `available`. With an `Idempotency-Key`, a retry is safe: ' +
      'for 24 hours after a create succeeded, the same key with the same body (as parsed JSON) creates nothing and ' +
      'gets the first 201 again, marked `Idempotent-Replayed: true`. Keys are per API key; only a 201 is remembered.',
    parameters: [
      {
        name: IDEMPOTENCY_KEY_HEADER,
        in: 'header',
        required: false,
        ...(({ description, ...schema }) => ({
          description,
          schema: { ...schema, pattern: IDEMPOTENCY_KEY_PATTERN.source },
        }))(parameterSchema(IdempotencyKey)),
      },
    ],
    requestBody: { required: true, content: { 'application/json': { schema: ref('NewPet') } } },
    responses: {
      '201': {
        description: 'The created animal.',
        headers: {
          ...requestIdHeader,
          Location: header('Path of the new animal.'),
          [IDEMPOTENT_REPLAYED_HEADER]: header(
            '`true` when this repeats the response to an earlier request with the same Idempotency-Key.',
            { type: 'string', enum: ['true'] },
          ),
        },
        content: { 'application/json': { schema: ref('Pet') } },
      },
      '400': error('The body is not a JSON object, misses required fields, has unknown fields or invalid values.'),
      '413': error(`The body is larger than ${MAX_BODY_BYTES} bytes.`),
      '415': error('Content-Type is not application/json.'),
      '409': error('A request with the same Idempotency-Key is still being processed.', retryAfter),
      '422': error('The Idempotency-Key was already used with a different body.'),
      ...commonErrors,
    },
  },
  getPet: {
    description: `Deprecated: removed on ${sunsetDay}. Use GET /pets with the status filter.`,
    parameters: parameters(PetIdParams.shape, 'path'),
    responses: {
      '200': {
        description: 'The animal.',
        headers: { ...requestIdHeader, ...deprecationHeaders },
        content: { 'application/json': { schema: ref('Pet') } },
      },
      '400': error('petId is not a positive integer of at most 2^53−1.', deprecationHeaders),
      '404': error('No animal has that id.', deprecationHeaders),
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
      description:
        'A catalogue of animals. Every error has the Error body; every request needs `Authorization: Bearer <key>`.',
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
