// The container's Logger, Metrics and Tracer (Powertools), configured from the environment
// the stack sets: POWERTOOLS_SERVICE_NAME, POWERTOOLS_LOG_LEVEL, POWERTOOLS_METRICS_NAMESPACE,
// POWERTOOLS_TRACE_ENABLED.
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';

export const logger = new Logger();
export const metrics = new Metrics();
/**
 * X-Ray segments for the handler and each AWS SDK call. Off outside Lambda and whenever
 * POWERTOOLS_TRACE_ENABLED is false (the local stage: no X-Ray daemon to send to); off, its
 * middleware and client capture do nothing at all per request.
 */
export const tracer = new Tracer();
