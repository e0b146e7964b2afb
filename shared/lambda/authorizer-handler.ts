// The middy chain of the TOKEN authorizer, beside httpHandler (middleware.ts): context
// for the logs, one summary line per invocation (never the token) carrying the AuthFailures
// metric and Powertools' ColdStart metric. A refusal is a thrown KeyRefused, which API
// Gateway turns into a 401; any other fault's stack goes to the log and API Gateway
// answers 503 (AUTHORIZER_FAILURE).
import middy, { type MiddlewareObj, type Request } from '@middy/core';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';
import type { AuthFailureReason } from '../observability/metric-names.ts';
import {
  annotateTrace,
  codeVersion,
  coldStartMetrics,
  elapsedMs,
  type Invocation,
  logAuthorizerSummary,
  logFault,
  type MetricRecord,
  metric,
  startInvocation,
} from '../observability/telemetry.ts';
import { beginTrace, endTrace, isTraced } from '../observability/xray.ts';

type Event = APIGatewayTokenAuthorizerEvent;
type Result = APIGatewayAuthorizerResult;
type AuthorizerMiddleware = MiddlewareObj<Event, Result, Error, Context, Record<string, unknown>>;

/** Its message is the one API Gateway turns into a 401 (any other is a 500 → our 503). */
export class KeyRefused extends Error {
  readonly reason: AuthFailureReason;
  /** Known for a revoked key: on-call can see who still uses it. Never the key itself. */
  readonly keyId: string | undefined;
  constructor(reason: AuthFailureReason, keyId?: string) {
    super('Unauthorized');
    this.reason = reason;
    this.keyId = keyId;
  }
}

/** The `operation` annotation of the authorizer's traces (its event carries no request id). */
const AUTHORIZER_OPERATION = 'authorizer';

/**
 * What one invocation's steps share: one ordinary object on middy's request, made as it begins (not
 * in `request.internal`, which middy makes a dictionary: there each write and read is a lookup by name).
 */
interface InvocationState {
  readonly invocation: Invocation;
  readonly metrics: MetricRecord[];
}
const STATE = Symbol('petstore authorizer state');
type AuthorizerRequest = Request<Event, Result, Error, Context, Record<string, unknown>> & {
  [STATE]?: InvocationState;
};
const beginState = (request: AuthorizerRequest, traceId: string | undefined): InvocationState => {
  const invocation = startInvocation(request.context, traceId);
  const state = { invocation, metrics: coldStartMetrics(invocation) };
  request[STATE] = state;
  return state;
};
/** Begun by `before`, which runs first (or here, if it never ran, without a trace header). */
const stateOf = (request: AuthorizerRequest): InvocationState => request[STATE] ?? beginState(request, undefined);

/** How the invocation's trace (if Lambda sampled it) ends: a refused key is an answer, not a fault. */
const endTraceOf = ({ error }: AuthorizerRequest): void => {
  if (isTraced()) endTrace(error instanceof KeyRefused ? {} : { error });
};

/**
 * The chain's one middleware: the trace and the invocation's telemetry, in the order two middlewares
 * ran them before (the trace opened first and sent last), one call per step, with no await, a trace
 * sent or not. The policy names only the key id; still, a trace needs no copy of it. The event is
 * the token: nothing hands it to the Logger (no injectLambdaContext, logFault).
 */
const authorizerMiddleware = (): AuthorizerMiddleware => ({
  before: (request: AuthorizerRequest) => {
    beginState(request, beginTrace()?.Root);
  },
  after: (request: AuthorizerRequest) => {
    const { event, response } = request;
    const { invocation, metrics } = stateOf(request);
    const keyId = response?.principalId;
    annotateTrace(invocation, { operation: AUTHORIZER_OPERATION, keyId });
    logAuthorizerSummary(
      invocation,
      {
        outcome: 'allow',
        keyId,
        latencyMs: elapsedMs(invocation),
        methodArn: event.methodArn,
        ...codeVersion(invocation.context),
      },
      metrics,
    );
    endTraceOf(request);
  },
  onError: (request: AuthorizerRequest) => {
    const { event, error } = request;
    const { invocation, metrics } = stateOf(request);
    const latencyMs = elapsedMs(invocation);
    if (error instanceof KeyRefused) {
      annotateTrace(invocation, { operation: AUTHORIZER_OPERATION, keyId: error.keyId });
      logAuthorizerSummary(
        invocation,
        {
          outcome: 'deny',
          reason: error.reason,
          keyId: error.keyId,
          latencyMs,
          methodArn: event.methodArn,
          ...codeVersion(invocation.context),
        },
        [...metrics, metric('authFailures', { reason: error.reason })],
      );
      endTraceOf(request);
      return;
    }
    annotateTrace(invocation, { operation: AUTHORIZER_OPERATION });
    const version = codeVersion(invocation.context);
    logFault(invocation, 'authorizer fault', error, version);
    logAuthorizerSummary(invocation, { outcome: 'error', latencyMs, methodArn: event.methodArn, ...version }, metrics);
    endTraceOf(request);
  },
});

/** The authorizer's function: `handler` only decides, throwing KeyRefused to refuse. */
export const authorizerHandler = (handler: (event: Event, context: Context) => Promise<Result>) =>
  middy<Event, Result, Error, Context, Record<string, unknown>>().use(authorizerMiddleware()).handler(handler);
