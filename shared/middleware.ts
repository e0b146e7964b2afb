// The middy chain every HTTP function runs: context for the logs, one summary line
// and metrics per request, the contract's Error body for every failure, and the
// body size limit.
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy, { type MiddlewareObj, type Request } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { HttpError, PayloadTooLargeError } from './errors.ts';
import { INTERNAL_ERROR_MESSAGE } from './gateway-responses.ts';
import { bodyBytes, json, versionRoot } from './http.ts';
import { logger, metrics } from './observability.ts';
import { route, type Deprecation, type OperationId } from './routes.ts';
import type { ErrorBody, ErrorCode } from './schemas.ts';

type Event = APIGatewayProxyEvent;
type Result = APIGatewayProxyResult;
type HttpRequest = Request<Event, Result, Error, Context, Record<string, unknown>>;
type HttpMiddleware = MiddlewareObj<Event, Result, Error, Context, Record<string, unknown>>;
export type HttpHandler = (event: Event, context: Context) => Promise<Result>;

export const MAX_BODY_BYTES = 16 * 1024;

/** The caller's key id, which the authorizer put in principalId. Never the key. */
export const keyIdOf = (event: Event): string | undefined => event.requestContext.authorizer?.principalId ?? undefined;

const errorCodeOf = (error: unknown): ErrorCode | undefined =>
  error === undefined || error === null ? undefined : error instanceof HttpError ? error.code : 'INTERNAL_ERROR';

/** Every log line names the API Gateway request id (the client's requestId) and the key id. */
const requestContext = (): HttpMiddleware => ({
  before: ({ event }) => {
    logger.setCorrelationId(event.requestContext.requestId);
    const keyId = keyIdOf(event);
    if (keyId) logger.appendKeys({ keyId });
  },
});

let coldStart = true;

/** One summary line and the request metrics, whatever the outcome. */
const requestSummary = (operation: OperationId): HttpMiddleware => {
  const before = (request: HttpRequest) => {
    request.internal.startedAt = performance.now();
    request.internal.coldStart = coldStart;
    coldStart = false;
  };
  const finish = (request: HttpRequest) => {
    const status = request.response?.statusCode ?? 500;
    const errorCode = errorCodeOf(request.error);
    const latencyMs = Math.round((performance.now() - (request.internal.startedAt as number)) * 100) / 100;
    logger.info('request', {
      operation,
      status,
      errorCode,
      latencyMs,
      keyId: keyIdOf(request.event),
      requestId: request.event.requestContext.requestId,
      coldStart: request.internal.coldStart,
    });
    metrics.addDimensions({ operation, statusClass: `${Math.floor(status / 100)}xx` });
    metrics.addMetric('Requests', MetricUnit.Count, 1);
    metrics.addMetric('Latency', MetricUnit.Milliseconds, latencyMs);
    if (errorCode === 'BAD_REQUEST') metrics.addMetric('ValidationFailures', MetricUnit.Count, 1);
    if (errorCode === 'SERVICE_UNAVAILABLE') metrics.addMetric('DynamoDBFaults', MetricUnit.Count, 1);
  };
  return { before, after: finish, onError: finish };
};

/** Turns every error into the contract's Error body; the cause and stack go to the log only. */
const errorHandler = (): HttpMiddleware => ({
  onError: (request) => {
    const { error, event } = request;
    const requestId = event.requestContext.requestId;
    if (error instanceof HttpError) {
      if (error.status >= 500) logger.error(error.message, { error, cause: error.cause });
      const body: ErrorBody = { code: error.code, message: error.message, status: error.status, requestId };
      if (error.details) body.details = error.details;
      request.response = json(error.status, body, error.headers);
      return;
    }
    logger.error('unhandled error', { error });
    const body: ErrorBody = { code: 'INTERNAL_ERROR', message: INTERNAL_ERROR_MESSAGE, status: 500, requestId };
    request.response = json(500, body);
  },
});

const bodyLimit = (maxBytes: number): HttpMiddleware => ({
  before: ({ event }) => {
    if (bodyBytes(event).length > maxBytes) throw new PayloadTooLargeError(maxBytes);
  },
});

/** RFC 9745 and RFC 8594 headers on every response, and a count of calls per key id. */
const deprecated = ({ since, sunset, successor }: Deprecation): HttpMiddleware => {
  const addHeaders = ({ event, response }: HttpRequest) => {
    if (!response) return;
    response.headers = {
      ...response.headers,
      Deprecation: `@${Math.floor(since.getTime() / 1000)}`,
      Sunset: sunset.toUTCString(),
      Link: `<${versionRoot(event)}${successor}>; rel="successor-version"`,
    };
  };
  return {
    before: ({ event }) => {
      const counter = metrics.singleMetric();
      counter.addDimension('keyId', keyIdOf(event) ?? 'unknown');
      counter.addMetric('DeprecatedCalls', MetricUnit.Count, 1);
    },
    after: addHeaders,
    onError: addHeaders,
  };
};

/** A route's function: `handler` only parses, calls the domain and shapes the success response. */
export const httpHandler = (operationId: OperationId, handler: HttpHandler) => {
  const { deprecation } = route(operationId);
  const chain = middy<Event, Result, Error, Context, Record<string, unknown>>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { captureColdStartMetric: true }))
    .use(requestContext())
    .use(requestSummary(operationId));
  // Registered before errorHandler so that its onError runs after the Error body exists.
  if (deprecation) chain.use(deprecated(deprecation));
  return chain.use(errorHandler()).use(bodyLimit(MAX_BODY_BYTES)).handler(handler);
};
