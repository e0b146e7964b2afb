// The middy chain of the TOKEN authorizer, beside httpHandler (middleware.ts): context
// for the logs, one summary line per invocation (never the token) carrying the AuthFailures
// metric and Powertools' ColdStart metric. A refusal is a thrown KeyRefused, which API
// Gateway turns into a 401; any other fault's stack goes to the log and API Gateway
// answers 503 (AUTHORIZER_FAILURE).
import middy, { type MiddlewareObj } from '@middy/core';
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
import { traceHeaderOf, traceInvocation } from '../observability/xray.ts';

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

const authorizerTelemetry = (): AuthorizerMiddleware => {
  // Per request (request.internal), not per module: invocations may run side by side.
  const invocationOf = (internal: Record<string, unknown>) => internal.invocation as Invocation;
  const metricsOf = (internal: Record<string, unknown>) => internal.metrics as MetricRecord[];
  return {
    before: ({ context, internal }) => {
      const invocation = startInvocation(context, traceHeaderOf(internal)?.Root);
      internal.invocation = invocation;
      internal.metrics = coldStartMetrics(invocation);
    },
    after: ({ event, response, internal }) => {
      const keyId = response?.principalId;
      const invocation = invocationOf(internal);
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
        metricsOf(internal),
      );
    },
    onError: async ({ event, error, internal }) => {
      const invocation = invocationOf(internal);
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
          [...metricsOf(internal), metric('authFailures', { reason: error.reason })],
        );
        return;
      }
      annotateTrace(invocation, { operation: AUTHORIZER_OPERATION });
      const version = codeVersion(invocation.context);
      logFault(invocation, 'authorizer fault', error, version);
      logAuthorizerSummary(
        invocation,
        { outcome: 'error', latencyMs, methodArn: event.methodArn, ...version },
        metricsOf(internal),
      );
    },
  };
};

/** The authorizer's function: `handler` only decides, throwing KeyRefused to refuse. */
export const authorizerHandler = (handler: (event: Event) => Promise<Result>) =>
  middy<Event, Result, Error, Context, Record<string, unknown>>()
    // The policy names only the key id; still, a trace needs no copy of it. A refused key is an
    // answer, not a fault: only another error flags the trace.
    .use(traceInvocation<Event, Result>(({ error }) => (error instanceof KeyRefused ? {} : { error })))
    // The event is the token: nothing hands it to the Logger (no injectLambdaContext, logFault).
    .use(authorizerTelemetry())
    .handler(handler);
