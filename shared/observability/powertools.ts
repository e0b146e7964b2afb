// The container's Logger and Tracer (Powertools), configured from the environment the stack
// sets: POWERTOOLS_SERVICE_NAME, POWERTOOLS_LOG_LEVEL, POWERTOOLS_TRACE_ENABLED. Metrics ride
// on the Logger's summary lines (emf.ts says why not Powertools Metrics).
import { Logger } from '@aws-lambda-powertools/logger';
import type { Tracer } from '@aws-lambda-powertools/tracer';

export const logger = new Logger();
/**
 * X-Ray subsegments for the handler and each AWS SDK call, when POWERTOOLS_TRACE_ENABLED is
 * true (a deployed stage whose settings turn the Tracer on, infra/stages.ts); undefined
 * otherwise, the local stage included. Loaded only then: the X-Ray SDK under it adds ~30 ms
 * to a cold start's import (docs/performance.md), which nothing that leaves it off should pay.
 * The functions call nothing over HTTP but the AWS SDK, whose calls captureAWSv3Client traces:
 * patching Node's http and https as well would only add a second subsegment per DynamoDB call.
 */
export const tracer: Tracer | undefined =
  process.env.POWERTOOLS_TRACE_ENABLED === 'true'
    ? new (await import('@aws-lambda-powertools/tracer')).Tracer({ captureHTTPsRequests: false })
    : undefined;
