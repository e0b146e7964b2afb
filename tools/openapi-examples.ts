// Examples for the OpenAPI document, made by the code that makes the real answers: error
// bodies come from the typed errors, the validation of the zod schemas and the gateway
// response table, headers from the route table. So an example says what the service says;
// test/unit/openapi-examples.test.ts checks each one against its schema in the document.
import type * as z from 'zod/mini';
import { stageSettings } from '../infra/stages.ts';
import {
  GatewayTimeoutError,
  HttpError,
  NotFoundError,
  PayloadTooLargeError,
  RETRY_AFTER_SECONDS,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
  validationError,
} from '../shared/api/errors.ts';
import { type GatewayResponseType, gatewayErrorBody, gatewayResponses } from '../shared/api/gateway-responses.ts';
import { API_VERSION_PATH, MAX_BODY_BYTES, route } from '../shared/api/routes.ts';
import { ListPetsQuery, NewPet, type Pet, PetIdParams } from '../shared/api/schemas.ts';
import { rateLimitPolicy } from '../shared/domain/api-keys.ts';
import { createCursorCodec } from '../shared/domain/cursor.ts';
import { contractError } from '../shared/lambda/idempotent-create.ts';

/** An OpenAPI Example Object. */
export interface Example {
  summary: string;
  value: unknown;
}

const REQUEST_ID = 'c0ffee00-1d2e-4f5a-8b9c-0123456789ab';
/** A cursor as the service makes one (after the example page's last animal), with a secret of no stage. */
const CURSOR = createCursorCodec('an example secret, used by no stage').encode({ after: 2, status: null });

export const headerExamples = {
  requestId: REQUEST_ID,
  retryAfter: RETRY_AFTER_SECONDS,
  wwwAuthenticate: gatewayResponses.UNAUTHORIZED.headers!['WWW-Authenticate'],
  location: `${API_VERSION_PATH}/pets/1`,
  idempotencyKey: '5f0c6a2e-8d41-4b7a-9e3f-2c1d0b9a8e77',
  nextLink: `<${API_VERSION_PATH}/pets?limit=2&cursor=${CURSOR}>; rel="next"`,
  /** Production's limits per key, as the authorizer names them. */
  rateLimitPolicy: rateLimitPolicy(stageSettings.production.keyLimits),
};

export const parameterExamples = {
  listPets: { limit: 20, status: 'available', cursor: CURSOR },
  getPet: { petId: 1 },
};

/** The headers every getPet response carries, as shared/lambda/middleware.ts writes them. */
const deprecation = route('getPet').deprecation;
if (!deprecation) throw new Error('getPet is deprecated: its route must say since when and until when');
export const deprecationExamples = {
  deprecation: `@${Math.floor(deprecation.since.getTime() / 1000)}`,
  sunset: deprecation.sunset.toUTCString(),
  successorLink: `<${API_VERSION_PATH}${deprecation.successor}>; rel="successor-version"`,
};

const rex: Pet = { id: 1, name: 'Rex', categoryId: 3, status: 'available' };
const mia: Pet = { id: 2, name: 'Mia', categoryId: 7, status: 'pending' };

export const petExamples = {
  newPet: {
    minimal: { summary: 'Without a status (then available)', value: { name: 'Rex', categoryId: 3 } },
    withStatus: { summary: 'With a status', value: { name: 'Mia', categoryId: 7, status: 'pending' } },
  },
  created: { rex: { summary: 'The created animal, with its id', value: rex } },
  pet: { rex: { summary: 'An animal', value: rex } },
  page: {
    page: { summary: 'A page of animals', value: [rex, mia] },
    empty: { summary: 'Nothing matches', value: [] },
  },
} satisfies Record<string, Record<string, Example>>;

/** The Error body the service sends for `error` (shared/lambda/middleware.ts, errorHandler). */
const fromError = (summary: string, error: HttpError): Example => ({
  summary,
  value: {
    code: error.code,
    message: error.message,
    status: error.status,
    requestId: REQUEST_ID,
    ...(error.details && { details: error.details }),
  },
});

/** The 400 that the service's validation gives for `input`. */
const invalid = (summary: string, schema: z.ZodMiniType, input: unknown, location: string): Example => {
  const parsed = schema.safeParse(input);
  if (parsed.success) throw new Error(`example "${summary}" is valid input: it shows no error`);
  return fromError(summary, validationError(parsed.error, location));
};

/** The contract's error for a refusal of Powertools' idempotency utility (its error's name). */
const idempotencyRefusal = (name: string): HttpError => {
  const refusal = contractError(Object.assign(new Error(name), { name }));
  if (!(refusal instanceof HttpError)) throw new Error(`${name} is not turned into a contract error`);
  return refusal;
};

/** The Error body API Gateway answers by itself (shared/api/gateway-responses.ts). */
const fromGateway = (summary: string, type: GatewayResponseType, gatewayMessage = ''): Example => ({
  summary,
  value: gatewayErrorBody(type, REQUEST_ID, gatewayMessage),
});

export const errorExamples = {
  listPetsBadRequest: {
    limit: invalid('limit out of range', ListPetsQuery, { limit: '500' }, 'query'),
    status: invalid('unknown status', ListPetsQuery, { status: 'Sold' }, 'query'),
  },
  createPetBadRequest: {
    missing: invalid('categoryId missing', NewPet, { name: 'Rex' }, 'body'),
    unknownField: invalid('a field that is not allowed', NewPet, { id: 7, name: 'Rex', categoryId: 3 }, 'body'),
  },
  getPetBadRequest: { petId: invalid('petId not a positive integer', PetIdParams, { petId: '0' }, 'path') },
  notFound: { pet: fromError('No animal has that id', new NotFoundError('no animal has id 42')) },
  payloadTooLarge: { body: fromError('Body too large', new PayloadTooLargeError(MAX_BODY_BYTES)) },
  unsupportedMediaType: { contentType: fromError('Not JSON', new UnsupportedMediaTypeError()) },
  conflict: {
    inFlight: fromError(
      'The first request with this key has not answered yet',
      idempotencyRefusal('IdempotencyAlreadyInProgressError'),
    ),
  },
  unprocessableEntity: {
    otherBody: fromError('The key was used with another body', idempotencyRefusal('IdempotencyValidationError')),
  },
  unauthorized: { key: fromGateway('Key missing, unknown, revoked or expired', 'UNAUTHORIZED') },
  forbidden: { readKey: fromGateway('A read key on POST /pets', 'ACCESS_DENIED') },
  tooManyRequests: { throttled: fromGateway('Over the limit', 'THROTTLED') },
  internalError: { fault: fromGateway('A fault of ours', 'DEFAULT_5XX') },
  badGateway: { crashed: fromGateway('The function crashed', 'INTEGRATION_FAILURE') },
  serviceUnavailable: { database: fromError('Database unavailable', new ServiceUnavailableError(undefined)) },
  gatewayTimeout: { timeout: fromError('No answer in time', new GatewayTimeoutError(undefined)) },
} satisfies Record<string, Record<string, Example>>;
