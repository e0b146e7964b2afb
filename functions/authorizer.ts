// TOKEN authorizer: `Bearer <key>` → the key's hash in the keys table → Allow on the
// whole stage, naming the caller by key id. API Gateway caches the answer per token,
// so the policy must hold for every route, not just the one that asked.
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';
import { bearerKey } from '../shared/domain/api-keys.ts';
import type { AuthFailureReason } from '../shared/observability/metric-names.ts';
import { logger, metrics } from '../shared/observability/powertools.ts';
import { keysRepository } from '../shared/lambda/services.ts';
import { elapsedMs, logAuthorizerSummary, recordMetric } from '../shared/observability/telemetry.ts';

/** `arn:…:api-id/stage/METHOD/path` → `arn:…:api-id/stage/*`. */
const wholeStage = (methodArn: string): string => `${methodArn.split('/', 2).join('/')}/*`;

/** Its message is the one API Gateway turns into a 401 (any other is a 500 → our 503). */
class KeyRefused extends Error {
  readonly reason: AuthFailureReason;
  /** Known for a revoked key: on-call can see who still uses it. Never the key itself. */
  readonly keyId: string | undefined;
  constructor(reason: AuthFailureReason, keyId?: string) {
    super('Unauthorized');
    this.reason = reason;
    this.keyId = keyId;
  }
}

type Event = APIGatewayTokenAuthorizerEvent;
type Result = APIGatewayAuthorizerResult;

/**
 * One summary line per invocation (never the token), the AuthFailures metric, and
 * Powertools' ColdStart metric. A fault's stack goes to the log; API Gateway answers 503.
 */
const authorizerTelemetry = (): MiddlewareObj<Event, Result, Error, Context, Record<string, unknown>> => {
  // Per request (request.internal), not per module: invocations may run side by side.
  const latencyOf = (internal: Record<string, unknown>) => elapsedMs(internal.startedAt as number);
  return {
    before: ({ context, internal }) => {
      internal.startedAt = performance.now();
      metrics.captureColdStartMetric(context.functionName);
    },
    after: ({ event, response, internal }) => {
      const keyId = response?.principalId;
      logAuthorizerSummary({ outcome: 'allow', keyId, latencyMs: latencyOf(internal), methodArn: event.methodArn });
    },
    onError: ({ event, error, internal }) => {
      const latencyMs = latencyOf(internal);
      if (error instanceof KeyRefused) {
        logAuthorizerSummary({ outcome: 'deny', reason: error.reason, keyId: error.keyId, latencyMs, methodArn: event.methodArn });
        recordMetric('authFailures', { reason: error.reason });
        return;
      }
      logger.error('authorizer fault', { error });
      logAuthorizerSummary({ outcome: 'error', latencyMs, methodArn: event.methodArn });
    },
  };
};

export const handler = middy<Event, Result, Error, Context, Record<string, unknown>>()
  // logEvent stays off whatever POWERTOOLS_LOGGER_LOG_EVENT says: the event is the token.
  .use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }))
  .use(authorizerTelemetry())
  .handler(async (event) => {
    const key = bearerKey(event.authorizationToken);
    if (!key) throw new KeyRefused('malformed');
    const found = await keysRepository().lookup(key);
    if (!found) throw new KeyRefused('unknown');
    if (found.revoked) throw new KeyRefused('revoked', found.keyId);
    const { keyId } = found;

    return {
      principalId: keyId,
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: wholeStage(event.methodArn) }],
      },
      context: { keyId },
    };
  });
