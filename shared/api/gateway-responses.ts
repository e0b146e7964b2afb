// The errors API Gateway answers by itself, in the contract's Error body. The CDK
// stack renders these as gateway responses and the local server renders the same
// table, so a client cannot tell the two apart. Each is an error code of errors.ts
// (ERRORS: status, fixed text, headers), with at most its own message or headers.
import { ERRORS, type ErrorShape } from './errors.ts';
import type { ErrorCode } from './schemas.ts';

export type GatewayResponseType =
  | 'UNAUTHORIZED'
  | 'ACCESS_DENIED'
  | 'EXPIRED_TOKEN'
  | 'INVALID_SIGNATURE'
  | 'INVALID_API_KEY'
  | 'MISSING_AUTHENTICATION_TOKEN'
  | 'RESOURCE_NOT_FOUND'
  | 'BAD_REQUEST_PARAMETERS'
  | 'BAD_REQUEST_BODY'
  | 'REQUEST_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'THROTTLED'
  | 'QUOTA_EXCEEDED'
  | 'AUTHORIZER_FAILURE'
  | 'AUTHORIZER_CONFIGURATION_ERROR'
  | 'INTEGRATION_FAILURE'
  | 'INTEGRATION_TIMEOUT'
  | 'API_CONFIGURATION_ERROR'
  | 'DEFAULT_4XX'
  | 'DEFAULT_5XX';

export interface GatewayResponse {
  readonly status: number;
  readonly code: ErrorCode;
  /** Fixed text; undefined means API Gateway's own `$context.error.messageString`. */
  readonly message?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The answer for `code` as ERRORS states it, with this response's own message or headers where it has them. */
const respond = (code: ErrorCode, own: Pick<GatewayResponse, 'message' | 'headers'> = {}): GatewayResponse => ({
  code,
  ...(ERRORS[code] satisfies ErrorShape),
  ...own,
});

const unauthorized = respond('UNAUTHORIZED');
const notFound = respond('NOT_FOUND', { message: 'No such operation' });
const throttled = respond('TOO_MANY_REQUESTS', { message: 'Too many requests; retry later' });
/**
 * A key's daily quota (its usage plan) is used up until 00:00 UTC. A gateway response
 * header is a fixed literal and cannot count down to midnight: long enough that a client
 * does not hammer the API, short enough that it does not wait out a whole day.
 */
const QUOTA_RETRY_AFTER_SECONDS = 60 * 60;
const quotaExceeded = respond('TOO_MANY_REQUESTS', {
  message: "This key's daily request quota is used up; it starts over at 00:00 UTC",
  headers: { 'Retry-After': String(QUOTA_RETRY_AFTER_SECONDS) },
});
/**
 * A valid key whose scope does not allow the operation: the authorizer's policy denies it.
 * No RateLimit-Policy here, nor on the 429s: a gateway response's headers are literals or the
 * request's own parameters (AWS's x-amazon-apigateway-gateway-responses.responseParameters),
 * not the authorizer's context.
 */
const forbidden = respond('FORBIDDEN');
const unavailable = respond('SERVICE_UNAVAILABLE');
const timeout = respond('GATEWAY_TIMEOUT');
const badGateway = respond('BAD_GATEWAY');
const badRequest = respond('BAD_REQUEST');
const internalError = respond('INTERNAL_ERROR');

export const gatewayResponses: Readonly<Record<GatewayResponseType, GatewayResponse>> = {
  // Every refusal of a key is a 401, but a valid key's scope: 403.
  UNAUTHORIZED: unauthorized,
  ACCESS_DENIED: forbidden,
  EXPIRED_TOKEN: unauthorized,
  INVALID_SIGNATURE: unauthorized,
  INVALID_API_KEY: unauthorized,
  // API Gateway's answer to an unknown path or method, before any authorizer runs.
  MISSING_AUTHENTICATION_TOKEN: notFound,
  RESOURCE_NOT_FOUND: notFound,
  BAD_REQUEST_PARAMETERS: badRequest,
  BAD_REQUEST_BODY: badRequest,
  REQUEST_TOO_LARGE: respond('PAYLOAD_TOO_LARGE', { message: 'Request body is too large' }),
  UNSUPPORTED_MEDIA_TYPE: respond('UNSUPPORTED_MEDIA_TYPE', { message: 'Unsupported media type' }),
  THROTTLED: throttled,
  QUOTA_EXCEEDED: quotaExceeded,
  // The authorizer could not reach the keys table: a passing fault, not a bad key.
  AUTHORIZER_FAILURE: unavailable,
  AUTHORIZER_CONFIGURATION_ERROR: unavailable,
  // The function crashed, was throttled or answered something that is not a proxy response:
  // a 502, so that a crash never reads as a timeout (API Gateway's own default is 504 for both).
  INTEGRATION_FAILURE: badGateway,
  INTEGRATION_TIMEOUT: timeout,
  API_CONFIGURATION_ERROR: internalError,
  // The defaults pin the status so that the body's `status` always equals the HTTP status.
  DEFAULT_4XX: badRequest,
  DEFAULT_5XX: internalError,
};

/** The body as the local server sends it; API Gateway fills the same fields from `$context`. */
export const gatewayErrorBody = (type: GatewayResponseType, requestId: string, gatewayMessage: string) => {
  const { status, code, message } = gatewayResponses[type];
  return { code, message: message ?? gatewayMessage, status, requestId };
};
