// The OpenAPI 3.1 document, generated from the route table, the zod schemas and each
// operation's words (tools/operations/).
// `npm run openapi` writes it to openapi.json; a test fails when that file is stale.
import * as z from 'zod/mini';
import { LOCAL_DEFAULTS } from '../infra/local/config.ts';
import { DEPLOYED_STAGES } from '../infra/stages.ts';
import { API_VERSION_PATH, type OperationId, type Route, route, routes } from '../shared/api/routes.ts';
import { bodySchemas, querySchemas, responseSchemas } from '../shared/api/schemas.ts';
import { AUTHORIZATION_PATTERN } from '../shared/domain/api-keys.ts';
import { guide } from './openapi-guide.ts';
import { parameters, responsesOf, schemaRef } from './openapi-parts.ts';
import { operationFacts } from './operations/index.ts';

/** The schema of an operation's success body, as its route entry names it; undefined for a 204. */
export const successSchema = (operationId: OperationId) => {
  const { response } = route(operationId);
  return response === undefined ? undefined : responseSchemas[response];
};

/** The parameters of the route's `query` schema, each with its example: one missing or extra is an error. */
const queryParameters = (route: Route, examples: Readonly<Record<string, unknown>> | undefined) => {
  const shape = route.query === undefined ? {} : querySchemas[route.query].shape;
  const [named, given] = [Object.keys(shape), Object.keys(examples ?? {})];
  if (named.toSorted().join() !== given.toSorted().join())
    throw new Error(`${route.operationId}: query examples for ${given}, its route entry's query has ${named}`);
  return route.query === undefined ? [] : parameters(shape, 'query', examples ?? {});
};

/** An operation's description, parameters, body and answers: its document's words on its route's facts. */
const operationOf = (route: Route) => {
  const {
    description,
    queryExamples,
    parameters: own = [],
    bodyExamples,
    ...answers
  } = operationFacts[route.operationId].openapi;
  const params = [...queryParameters(route, queryExamples), ...own];
  return {
    description,
    ...(params.length > 0 && { parameters: params }),
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
