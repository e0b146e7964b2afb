// Examples for the OpenAPI document that every operation shares (each operation's own are in
// tools/operations/), made by the code that makes the real answers: error
// bodies come from the typed errors, the validation of the zod schemas and the gateway
// response table, headers from the route table. So an example says what the service says;
// test/unit/openapi-examples.test.ts checks each one against its schema in the document.
import type * as z from 'zod/mini';
import { stageSettings } from '../infra/stages.ts';
import {
  GatewayTimeoutError,
  type HttpError,
  NotFoundError,
  PayloadTooLargeError,
  RETRY_AFTER_SECONDS,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
  validationError,
} from '../shared/api/errors.ts';
import { type GatewayResponseType, gatewayErrorBody, gatewayResponses } from '../shared/api/gateway-responses.ts';
import { API_VERSION_PATH, MAX_BODY_BYTES, route } from '../shared/api/routes.ts';
import type { Pet } from '../shared/api/schemas.ts';
import { rateLimitPolicy } from '../shared/domain/api-keys.ts';

/** An OpenAPI Example Object. */
export interface Example {
  summary: string;
  value: unknown;
}

const REQUEST_ID = 'c0ffee00-1d2e-4f5a-8b9c-0123456789ab';

export const headerExamples = {
  requestId: REQUEST_ID,
  retryAfter: RETRY_AFTER_SECONDS,
  wwwAuthenticate: gatewayResponses.UNAUTHORIZED.headers!['WWW-Authenticate'],
  /** Production's limits per key, as the authorizer names them. */
  rateLimitPolicy: rateLimitPolicy(stageSettings.production.keyLimits),
};

/** The headers every getPet response carries, as shared/lambda/middleware.ts writes them. */
const deprecation = route('getPet').deprecation;
if (!deprecation) throw new Error('getPet is deprecated: its route must say since when and until when');
export const deprecationExamples = {
  deprecation: `@${Math.floor(deprecation.since.getTime() / 1000)}`,
  sunset: deprecation.sunset.toUTCString(),
  successorLink: `<${API_VERSION_PATH}${deprecation.successor}>; rel="successor-version"`,
};

/** The animals the operations' examples (tools/operations/) show. */
export const rex: Pet = { id: 1, name: 'Rex', categoryId: 3, status: 'available' };
export const mia: Pet = { id: 2, name: 'Mia', categoryId: 7, status: 'pending' };

/** The Error body the service sends for `error` (shared/lambda/middleware.ts, errorHandler). */
export const fromError = (summary: string, error: HttpError): Example => ({
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
export const invalid = (summary: string, schema: z.ZodMiniType, input: unknown, location: string): Example => {
  const parsed = schema.safeParse(input);
  if (parsed.success) throw new Error(`example "${summary}" is valid input: it shows no error`);
  return fromError(summary, validationError(parsed.error, location));
};

/** The Error body API Gateway answers by itself (shared/api/gateway-responses.ts). */
const fromGateway = (summary: string, type: GatewayResponseType, gatewayMessage = ''): Example => ({
  summary,
  value: gatewayErrorBody(type, REQUEST_ID, gatewayMessage),
});

export const errorExamples = {
  notFound: { pet: fromError('No animal has that id', new NotFoundError('no animal has id 42')) },
  payloadTooLarge: { body: fromError('Body too large', new PayloadTooLargeError(MAX_BODY_BYTES)) },
  unsupportedMediaType: { contentType: fromError('Not JSON', new UnsupportedMediaTypeError()) },
  unauthorized: { key: fromGateway('Key missing, unknown, revoked or expired', 'UNAUTHORIZED') },
  forbidden: { readKey: fromGateway('A read key on POST /pets', 'ACCESS_DENIED') },
  tooManyRequests: { throttled: fromGateway('Over the limit', 'THROTTLED') },
  internalError: { fault: fromGateway('A fault of ours', 'DEFAULT_5XX') },
  badGateway: { crashed: fromGateway('The function crashed', 'INTEGRATION_FAILURE') },
  serviceUnavailable: { database: fromError('Database unavailable', new ServiceUnavailableError(undefined)) },
  gatewayTimeout: { timeout: fromError('No answer in time', new GatewayTimeoutError(undefined)) },
} satisfies Record<string, Record<string, Example>>;
