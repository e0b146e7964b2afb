// shared/lambda — the Lambda adapter: the middy chains every function runs (httpHandler
// here, authorizerHandler in authorizer-handler.ts), reading proxy events and shaping
// results (http.ts), and the container's repositories wired from the environment
// (services.ts). Functions in functions/ import from here and from shared/api. It may
// import every other room of shared/, and nothing outside shared/.
//
// The middy chain every HTTP function runs: context for the logs, one summary line
// and metrics per request, the contract's Error body for every failure, and the
// body size limit.
import middy, { type MiddlewareObj, type Request } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import {
  FIXED_MESSAGES,
  GatewayTimeoutError,
  HttpError,
  PayloadTooLargeError,
  UnauthorizedError,
} from '../api/errors.ts';
import { type Deprecation, MAX_BODY_BYTES, type OperationId, route } from '../api/routes.ts';
import type { ErrorBody, ErrorCode } from '../api/schemas.ts';
import type { RequestInputs } from '../observability/log-fields.ts';
import { statusClassOf } from '../observability/metric-names.ts';
import {
  annotateTrace,
  coldStartMetrics,
  elapsedMs,
  type Invocation,
  logFault,
  logRequestSummary,
  type MetricRecord,
  metric,
  startInvocation,
} from '../observability/telemetry.ts';
import { traceHeaderOf, traceInvocation } from '../observability/xray.ts';
import { headerValues, json, versionRoot } from './http.ts';
import { requestInputs } from './request-fields.ts';

type Event = APIGatewayProxyEvent;
type Result = APIGatewayProxyResult;
type HttpRequest = Request<Event, Result, Error, Context, Record<string, unknown>>;
type HttpMiddleware = MiddlewareObj<Event, Result, Error, Context, Record<string, unknown>>;
export type HttpHandler = (event: Event, context: Context) => Promise<Result>;

// The largest body a route accepts: its one home is the route table, which the local gateway reads too.
export { MAX_BODY_BYTES };

/** The caller's key id, which the authorizer put in principalId. Never the key. */
export const keyIdOf = (event: Event): string | undefined => event.requestContext.authorizer?.principalId ?? undefined;

/** The typed form of an error, when it has one: middy's TimeoutError near the deadline is our 504. */
const asHttpError = (error: unknown): HttpError | undefined =>
  error instanceof HttpError
    ? error
    : error instanceof Error && error.name === 'TimeoutError'
      ? new GatewayTimeoutError(error)
      : undefined;

const errorCodeOf = (error: unknown): ErrorCode | undefined =>
  error === undefined || error === null ? undefined : (asHttpError(error)?.code ?? 'INTERNAL_ERROR');

/** The invocation, begun by the first middleware that asks (request.internal: per request). */
const invocationOf = (request: HttpRequest): Invocation =>
  ((request.internal.invocation as Invocation | undefined) ??= startInvocation(
    request.context,
    traceHeaderOf(request.internal)?.Root,
  ));

/** The request's inputs, as each of its lines names them (request-fields.ts): built once per request. */
const inputsOf = (request: HttpRequest): RequestInputs =>
  ((request.internal.inputs as RequestInputs | undefined) ??= requestInputs(request.event, request.context));

/** Metrics a middleware adds to the request's summary line (request.internal: per request, never per module). */
const metricsOf = (request: HttpRequest): MetricRecord[] => ((request.internal.metrics as MetricRecord[]) ??= []);

/**
 * One summary line per request, whatever the outcome, carrying the request's metrics (EMF), the
 * fields Powertools puts on each line (from the invocation's own context: summary-line.ts), the
 * API Gateway request id (the client's requestId, which the access log names too) and the key
 * id, so that one saved query finds all of a request's lines (a fault's line names them too:
 * errorHandler); the trace carries them as well. Powertools' `cold_start` and ColdStart metric are
 * decided as Powertools decides them (startInvocation).
 */
const requestTelemetry = (operation: OperationId): HttpMiddleware => {
  const before = (request: HttpRequest) => {
    const invocation = invocationOf(request);
    const { requestId } = request.event.requestContext;
    const keyId = keyIdOf(request.event);
    // X-Ray finds the trace by `annotation.requestId = "…"` (docs/runbook.md).
    annotateTrace(invocation, { operation, keyId, requestId });
    metricsOf(request).push(...coldStartMetrics(invocation));
  };
  const finish = (request: HttpRequest) => {
    const status = request.response?.statusCode ?? 500;
    const errorCode = errorCodeOf(request.error);
    const invocation = invocationOf(request);
    const latencyMs = elapsedMs(invocation);
    const { requestId } = request.event.requestContext;
    const metrics = metricsOf(request);
    metrics.push(
      metric('requests', { operation, statusClass: statusClassOf(status) }),
      metric('latency', { operation }, latencyMs),
      // The release alarms' view: this version's answers, and which of them were faults.
      metric('versionFaults', { operation, executedVersion: request.context.functionVersion }, status >= 500 ? 1 : 0),
    );
    if (errorCode === 'BAD_REQUEST') metrics.push(metric('validationFailures', { operation }));
    if (errorCode === 'SERVICE_UNAVAILABLE') metrics.push(metric('dynamodbFaults', { operation }));
    const summary = {
      operation,
      status,
      errorCode,
      latencyMs,
      keyId: keyIdOf(request.event),
      requestId,
      ...inputsOf(request),
    };
    logRequestSummary(invocation, summary, metrics);
  };
  return { before, after: finish, onError: finish };
};

/** Turns every error into the contract's Error body; the cause and stack go to the log only. */
const errorHandler = (): HttpMiddleware => ({
  onError: async (request) => {
    const { event } = request;
    const requestId = event.requestContext.requestId;
    // The fault's line names the request as its summary line does: its inputs, version and commit.
    const ids = { requestId, keyId: keyIdOf(event), ...inputsOf(request) };
    const error = asHttpError(request.error) ?? request.error;
    if (error instanceof HttpError) {
      // The stack (and the cause's) goes to the log only; the body names the requestId to find it.
      if (error.status >= 500) logFault(invocationOf(request), error.message, error, ids);
      const body: ErrorBody = { code: error.code, message: error.message, status: error.status, requestId };
      if (error.details) body.details = error.details;
      request.response = json(error.status, body, error.headers);
      return;
    }
    logFault(invocationOf(request), 'unhandled error', error, ids);
    const body: ErrorBody = { code: 'INTERNAL_ERROR', message: FIXED_MESSAGES.INTERNAL_ERROR, status: 500, requestId };
    request.response = json(500, body);
  },
});

/** Decoded size without decoding: base64 is 3 bytes per 4 characters, less its padding. */
const bodyByteLength = ({ body, isBase64Encoded }: Event): number => {
  if (!body) return 0;
  if (!isBase64Encoded) return Buffer.byteLength(body, 'utf8');
  const padding = body.endsWith('==') ? 2 : body.endsWith('=') ? 1 : 0;
  return Math.floor((body.length * 3) / 4) - padding;
};

/**
 * What no function runs with: a body over `maxBytes`, or two Authorization headers, which are
 * no credential (the contract's 401) whichever one the authorizer was shown: a gateway may
 * authorise the first and hand the function the last.
 */
const requestLimits = (maxBytes: number): HttpMiddleware => ({
  before: ({ event }) => {
    if (headerValues(event, 'authorization').length > 1) throw new UnauthorizedError();
    if (bodyByteLength(event) > maxBytes) throw new PayloadTooLargeError(maxBytes);
  },
});

/**
 * `RateLimit-Policy` on every answer, success or error: the caller's limits, which the
 * authorizer put in its context (the stage's usage plan, or the local stage's PETSTORE_KEY_*).
 */
const rateLimitPolicy = (): HttpMiddleware => {
  const addHeader = ({ event, response }: HttpRequest) => {
    const policy = event.requestContext.authorizer?.rateLimitPolicy;
    if (!response || typeof policy !== 'string') return;
    response.headers = { ...response.headers, 'RateLimit-Policy': policy };
  };
  return { after: addHeader, onError: addHeader };
};

/** RFC 9745 and RFC 8594 headers on every response, and a count of calls per key id. */
const deprecated = (operation: OperationId, { since, sunset, successor }: Deprecation): HttpMiddleware => {
  // Fixed for the life of the function: formatted once, at init.
  const deprecation = `@${Math.floor(since.getTime() / 1000)}`;
  const sunsetDate = sunset.toUTCString();
  const addHeaders = ({ event, response }: HttpRequest) => {
    if (!response) return;
    response.headers = {
      ...response.headers,
      Deprecation: deprecation,
      Sunset: sunsetDate,
      Link: `<${versionRoot(event)}${successor}>; rel="successor-version"`,
    };
  };
  return {
    before: (request) => {
      metricsOf(request).push(metric('deprecatedCalls', { operation, keyId: keyIdOf(request.event) ?? 'unknown' }));
    },
    after: addHeaders,
    onError: addHeaders,
  };
};

/** A route's function: `handler` only parses, calls the domain and shapes the success response. */
export const httpHandler = (operationId: OperationId, handler: HttpHandler) => {
  const { deprecation } = route(operationId);
  const chain = middy<Event, Result, Error, Context, Record<string, unknown>>()
    // First, so that its handler subsegment holds the annotations and the DynamoDB calls. The
    // response (animals) stays out of the trace; the status flags it, an error is its cause.
    .use(traceInvocation<Event, Result>(({ response, error }) => ({ status: response?.statusCode ?? 500, error })))
    // No Powertools injectLambdaContext: the event, which holds the Authorization header, never
    // reaches the Logger (whatever POWERTOOLS_LOGGER_LOG_EVENT says), and a fault's line gets the
    // context when it is written (logFault).
    .use(requestTelemetry(operationId));
  // Registered before errorHandler so that their onError runs after the Error body exists.
  chain.use(rateLimitPolicy());
  if (deprecation) chain.use(deprecated(operationId, deprecation));
  return chain.use(errorHandler()).use(requestLimits(MAX_BODY_BYTES)).handler(handler);
};
