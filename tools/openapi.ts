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
import { API_VERSION_PATH, type OperationId, type Route, routes } from '../shared/api/routes.ts';
import { bodySchemas, ListPetsQuery, Pet, PetIdParams, Pets } from '../shared/api/schemas.ts';
import { AUTHORIZATION_PATTERN } from '../shared/domain/api-keys.ts';
import { errorExamples, headerExamples, parameterExamples, petExamples } from './openapi-examples.ts';
import { guide } from './openapi-guide.ts';
import {
  header,
  keyedError,
  LINK_SCHEMA,
  type OperationDoc,
  parameterSchema,
  parameters,
  responsesOf,
  retryAfter,
  schemaRef,
  sunsetDay,
} from './openapi-parts.ts';

const operations: Record<OperationId, OperationDoc> = {
  listPets: {
    description:
      'Animals ordered by id when filtered by status. When more match, the `Link` header carries `rel="next"`: ' +
      'the same listing with an opaque `cursor`, relative to the request URL. Following `next` links from the ' +
      'first page visits every matching animal once; the last page has no `next`.',
    parameters: parameters(ListPetsQuery.shape, 'query', parameterExamples.listPets),
    success: {
      description: 'A page of animals; `[]` when nothing matches.',
      headers: { Link: header('`<…>; rel="next"` when more animals match.', headerExamples.nextLink, LINK_SCHEMA) },
      content: { schema: Pets, examples: petExamples.page },
    },
    badRequest: {
      description: 'A query parameter or the cursor is malformed or out of range.',
      examples: errorExamples.listPetsBadRequest,
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
    bodyExamples: petExamples.newPet,
    success: {
      description: 'The created animal.',
      headers: {
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
      content: { schema: Pet, examples: petExamples.created },
    },
    badRequest: {
      description: 'The body is not a JSON object, misses required fields, has unknown fields or invalid values.',
      examples: errorExamples.createPetBadRequest,
    },
    refusals: {
      409: keyedError(
        'CONFLICT',
        'A request with the same Idempotency-Key is still being processed.',
        errorExamples.conflict,
        retryAfter,
      ),
      422: keyedError(
        'UNPROCESSABLE_ENTITY',
        'The Idempotency-Key was already used with a different body.',
        errorExamples.unprocessableEntity,
      ),
    },
  },
  getPet: {
    description: `Deprecated: removed on ${sunsetDay}. Use GET /pets with the status filter.`,
    parameters: parameters(PetIdParams.shape, 'path', parameterExamples.getPet),
    success: { description: 'The animal.', content: { schema: Pet, examples: petExamples.pet } },
    badRequest: {
      description: 'petId is not a positive integer of at most 2^53−1.',
      examples: errorExamples.getPetBadRequest,
    },
  },
};

/** The schema of an operation's success body, as its document words it; undefined for a 204. */
export const successSchema = (operationId: OperationId) => operations[operationId].success.content?.schema;

/** An operation's description, parameters, body and answers: its document's words on its route's facts. */
const operationOf = (route: Route) => {
  const { description, parameters: params, bodyExamples, ...answers } = operations[route.operationId];
  return {
    description,
    ...(params && { parameters: params }),
    ...(route.body !== undefined && {
      requestBody: {
        required: true,
        content: { 'application/json': { schema: schemaRef(bodySchemas[route.body]), examples: bodyExamples } },
      },
    }),
    responses: responsesOf(route, answers),
  };
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
        ...operationOf(route),
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
