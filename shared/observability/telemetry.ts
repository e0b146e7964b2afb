// shared/observability — what on-call reads: the container's Powertools Logger and
// Metrics (powertools.ts), the metric names and dimensions (metric-names.ts) and log
// fields (log-fields.ts) that the CDK alarms and saved queries read too, and the
// helpers that write them (this file). metric-names.ts and log-fields.ts are pure data
// (the CDK app imports them); the rest imports Powertools. Imports only shared/api.
//
// Recording the metrics of metric-names.ts and the summary lines of log-fields.ts, so
// that every emitter uses the declared names and dimensions.
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { MetricUnit } from '@aws-lambda-powertools/metrics/types';
import {
  AUTHORIZER_SUMMARY_MESSAGE,
  type AuthorizerSummary,
  REQUEST_SUMMARY_MESSAGE,
  type RequestSummary,
} from './log-fields.ts';
import { assertDimensions, METRICS, type MetricDimension, type MetricKey } from './metric-names.ts';
import { logger, metrics, tracer } from './powertools.ts';

type Dimensions = Partial<Record<MetricDimension, string>>;

/**
 * A second Metrics of the container for metrics written at once, with other dimensions
 * than the invocation's line. Reused: metrics.singleMetric() builds a new Metrics per
 * call, which costs about 20 times more. Made at init, not on the first invocation,
 * which a cold start waits for.
 */
const immediate = new Metrics();

/** Writes one metric now, on its own EMF line. */
export const recordMetric = (key: MetricKey, dimensions: Dimensions, value = 1): void => {
  assertDimensions(key, dimensions);
  // Synchronous from the first add to the publish: side-by-side invocations cannot interleave.
  for (const [name, dimensionValue] of Object.entries(dimensions)) immediate.addDimension(name, dimensionValue);
  immediate.addMetric(METRICS[key].name, METRICS[key].unit as MetricUnit, value);
  immediate.publishStoredMetrics();
};

/**
 * Adds metrics sharing one dimension set to the invocation's EMF line, which
 * Powertools' logMetrics middleware writes when the invocation ends.
 */
export const addInvocationMetrics = (dimensions: Dimensions, values: Partial<Record<MetricKey, number>>): void => {
  for (const key of Object.keys(values) as MetricKey[]) assertDimensions(key, dimensions);
  for (const [name, dimensionValue] of Object.entries(dimensions)) metrics.addDimension(name, dimensionValue);
  for (const [key, value] of Object.entries(values) as [MetricKey, number][]) {
    metrics.addMetric(METRICS[key].name, METRICS[key].unit as MetricUnit, value);
  }
};

/** As Powertools decides it (its Utility class): only an on-demand environment's first invocation. */
let coldStart = process.env.AWS_LAMBDA_INITIALIZATION_TYPE?.trim() === 'on-demand';

/**
 * Powertools' ColdStart metric, as `captureColdStartMetric` writes it (the same name,
 * `service` and `function_name`), through the reused Metrics above: Powertools' own
 * builds a new Metrics (singleMetric) on the first invocation, which a cold start waits for.
 */
export const recordColdStart = (functionName: string): void => {
  if (!coldStart) return;
  coldStart = false;
  recordMetric('coldStart', { function_name: functionName });
};

export const logRequestSummary = (summary: RequestSummary): void =>
  logger.info(REQUEST_SUMMARY_MESSAGE, { ...summary });

export const logAuthorizerSummary = (summary: AuthorizerSummary): void =>
  logger.info(AUTHORIZER_SUMMARY_MESSAGE, { ...summary });

/**
 * Indexed X-Ray annotations of the invocation's trace, so that a trace can be found by the
 * client's requestId, the operation or the caller's key id (never the key). A no-op when
 * tracing is off.
 */
export const annotateTrace = (annotations: {
  operation: string;
  keyId?: string | undefined;
  requestId?: string;
}): void => {
  if (!tracer) return;
  for (const [key, value] of Object.entries(annotations)) if (value !== undefined) tracer.putAnnotation(key, value);
};

/** Milliseconds since `startedAt` (a performance.now() reading), to 0.01 ms. */
export const elapsedMs = (startedAt: number): number => Math.round((performance.now() - startedAt) * 100) / 100;
