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
  metricWith,
  startInvocation,
} from '../observability/telemetry.ts';
import { beginTrace, endTrace, isTraced } from '../observability/xray.ts';
import { headerCount, json, versionRoot } from './http.ts';
import { addRequestInputs } from './request-fields.ts';

type Event = APIGatewayProxyEvent;
type Result = APIGatewayProxyResult;
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

/**
 * What one request's steps share: one ordinary object on middy's request, made as it begins.
 * Not in `request.internal`, which middy makes with Object.create(null), a dictionary: there each
 * write and read is a lookup by name, here a fixed field.
 */
interface RequestState {
  readonly invocation: Invocation;
  /** The caller's key id (keyIdOf), read once. */
  readonly keyId: string | undefined;
  /** Metrics the request's summary line carries, in the order recorded. */
  readonly metrics: MetricRecord[];
}
const STATE = Symbol('petstore request state');
type HttpRequest = Request<Event, Result, Error, Context, Record<string, unknown>> & { [STATE]?: RequestState };

/** Begins the request's state; `traceId`: the Root of its trace header (undefined without one). */
const beginState = (request: HttpRequest, traceId: string | undefined): RequestState => {
  const invocation = startInvocation(request.context, traceId);
  const state: RequestState = {
    invocation,
    keyId: keyIdOf(request.event),
    metrics: coldStartMetrics(invocation),
  };
  request[STATE] = state;
  return state;
};
/** The request's state: begun by `before`, which runs first (or here, if it never ran, without a trace header). */
const stateOf = (request: HttpRequest): RequestState => request[STATE] ?? beginState(request, undefined);

/**
 * The metrics whose dimensions are fixed for a function, made (and their dimensions checked) once
 * at init rather than on every request: the records are only read (emf.ts).
 */
const fixedMetrics = (operation: OperationId) => {
  const requests = new Map<string, MetricRecord>();
  let version: string | undefined;
  let versionFaults: readonly [MetricRecord, MetricRecord] | undefined;
  return {
    requests: (status: number): MetricRecord => {
      const statusClass = statusClassOf(status);
      let record = requests.get(statusClass);
      if (record === undefined) {
        record = metric('requests', { operation, statusClass });
        requests.set(statusClass, record);
      }
      return record;
    },
    latency: metricWith('latency', { operation }),
    // The release alarms' view: this version's answers, and which of them were faults.
    versionFaults: (executedVersion: string, fault: boolean): MetricRecord => {
      if (version !== executedVersion || versionFaults === undefined) {
        const dimensions = { operation, executedVersion };
        versionFaults = [metric('versionFaults', dimensions, 0), metric('versionFaults', dimensions, 1)];
        version = executedVersion;
      }
      return versionFaults[fault ? 1 : 0];
    },
    validationFailures: metric('validationFailures', { operation }),
    dynamodbFaults: metric('dynamodbFaults', { operation }),
  };
};

/**
 * One summary line per request, whatever the outcome, carrying the request's metrics (EMF), the
 * fields Powertools puts on each line (from the invocation's own context: summary-line.ts), the
 * API Gateway request id (the client's requestId, which the access log names too) and the key
 * id, so that one saved query finds all of a request's lines (a fault's line names them too:
 * renderError); the trace carries them as well. Powertools' `cold_start` and ColdStart metric are
 * decided as Powertools decides them (startInvocation).
 */
const summarize = (
  operation: OperationId,
  metrics: ReturnType<typeof fixedMetrics>,
  request: HttpRequest,
  state: RequestState,
) => {
  const status = request.response?.statusCode ?? 500;
  const errorCode = errorCodeOf(request.error);
  const { invocation } = state;
  const latencyMs = elapsedMs(invocation);
  const recorded = state.metrics;
  recorded.push(
    metrics.requests(status),
    metrics.latency(latencyMs),
    metrics.versionFaults(request.context.functionVersion, status >= 500),
  );
  if (errorCode === 'BAD_REQUEST') recorded.push(metrics.validationFailures);
  if (errorCode === 'SERVICE_UNAVAILABLE') recorded.push(metrics.dynamodbFaults);
  // The request's inputs (request-fields.ts) written onto the line's object, not spread into it.
  const summary = addRequestInputs(
    { operation, status, errorCode, latencyMs, keyId: state.keyId, requestId: request.event.requestContext.requestId },
    request.event,
    request.context,
  );
  logRequestSummary(invocation, summary, recorded);
};

/** Turns every error into the contract's Error body; the cause and stack go to the log only. */
const renderError = (request: HttpRequest, state: RequestState): void => {
  const requestId = request.event.requestContext.requestId;
  // The fault's line names the request as its summary line does: its inputs, version and commit.
  const ids = addRequestInputs({ requestId, keyId: state.keyId }, request.event, request.context);
  const error = asHttpError(request.error) ?? request.error;
  if (error instanceof HttpError) {
    // The stack (and the cause's) goes to the log only; the body names the requestId to find it.
    if (error.status >= 500) logFault(state.invocation, error.message, error, ids);
    const body: ErrorBody = { code: error.code, message: error.message, status: error.status, requestId };
    if (error.details) body.details = error.details;
    request.response = json(error.status, body, error.headers);
    return;
  }
  logFault(state.invocation, 'unhandled error', error, ids);
  const body: ErrorBody = { code: 'INTERNAL_ERROR', message: FIXED_MESSAGES.INTERNAL_ERROR, status: 500, requestId };
  request.response = json(500, body);
};

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
const checkLimits = (event: Event, maxBytes: number): void => {
  if (headerCount(event, 'authorization') > 1) throw new UnauthorizedError();
  if (bodyByteLength(event) > maxBytes) throw new PayloadTooLargeError(maxBytes);
};

/**
 * The headers every answer gets, success or error, in one copy of the response's (never written
 * into: a handler's headers may be shared, and the idempotency layer keeps its responses):
 * a deprecated route's RFC 9745 and RFC 8594 headers, then `RateLimit-Policy`, the caller's
 * limits, which the authorizer put in its context (the stage's usage plan, or the local stage's
 * PETSTORE_KEY_*).
 */
const answerHeaders = (deprecation: Deprecation | undefined) => {
  // Fixed for the life of the function: formatted once, at init.
  const deprecated = deprecation && {
    since: `@${Math.floor(deprecation.since.getTime() / 1000)}`,
    sunset: deprecation.sunset.toUTCString(),
    successor: deprecation.successor,
  };
  return ({ event, response }: HttpRequest): void => {
    if (!response) return;
    const policy = event.requestContext.authorizer?.rateLimitPolicy;
    const limited = typeof policy === 'string';
    if (!deprecated && !limited) return;
    const headers = { ...response.headers };
    if (deprecated) {
      headers.Deprecation = deprecated.since;
      headers.Sunset = deprecated.sunset;
      headers.Link = `<${versionRoot(event)}${deprecated.successor}>; rel="successor-version"`;
    }
    if (limited) headers['RateLimit-Policy'] = policy;
    response.headers = headers;
  };
};

/** How the invocation's trace ends, if Lambda sampled it: nothing to wait for (xray.ts). */
const endTraceOf = (request: HttpRequest): void => {
  if (isTraced()) endTrace({ status: request.response?.statusCode ?? 500, error: request.error });
};

/**
 * The chain's one middleware: the trace, the request's telemetry, the Error body, the answer's
 * headers and the limits, in the order separate middlewares ran them before (one object, so that
 * middy makes one call per step, with no await, a trace sent or not). In order:
 * before: the trace opens (first, so that its handler subsegment holds the annotations and the
 * DynamoDB calls), the invocation begins, a deprecated call is counted per key id, the limits
 * are checked; after: the headers, the summary line, the trace closes; on error: the Error body
 * first, so that the headers and the line see it, then the same. The response (animals) stays
 * out of the trace; the status flags it, an error is its cause. No Powertools injectLambdaContext:
 * the event, which holds the Authorization header, never reaches the Logger (whatever
 * POWERTOOLS_LOGGER_LOG_EVENT says), and a fault's line gets the context when it is written (logFault).
 */
const httpMiddleware = (operation: OperationId, deprecation: Deprecation | undefined): HttpMiddleware => {
  const metrics = fixedMetrics(operation);
  const addHeaders = answerHeaders(deprecation);
  return {
    before: (request: HttpRequest) => {
      const state = beginState(request, beginTrace()?.Root);
      const { keyId } = state;
      // X-Ray finds the trace by `annotation.requestId = "…"` (docs/runbook.md). Untraced, no object for it.
      if (isTraced())
        annotateTrace(state.invocation, { operation, keyId, requestId: request.event.requestContext.requestId });
      if (deprecation) state.metrics.push(metric('deprecatedCalls', { operation, keyId: keyId ?? 'unknown' }));
      checkLimits(request.event, MAX_BODY_BYTES);
    },
    after: (request: HttpRequest) => {
      addHeaders(request);
      summarize(operation, metrics, request, stateOf(request));
      endTraceOf(request);
    },
    onError: (request: HttpRequest) => {
      const state = stateOf(request);
      renderError(request, state);
      addHeaders(request);
      summarize(operation, metrics, request, state);
      endTraceOf(request);
    },
  };
};

/** A route's function: `handler` only parses, calls the domain and shapes the success response. */
export const httpHandler = (operationId: OperationId, handler: HttpHandler) =>
  middy<Event, Result, Error, Context, Record<string, unknown>>()
    .use(httpMiddleware(operationId, route(operationId).deprecation))
    .handler(handler);
