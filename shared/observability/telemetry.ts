// shared/observability — what on-call reads: the container's Powertools Logger and Tracer
// (powertools.ts), the metric names and dimensions (metric-names.ts) and log fields
// (log-fields.ts) that the CDK alarms and saved queries read too, the metrics as EMF
// (emf.ts), and the helpers that write them (this file). metric-names.ts and log-fields.ts
// are pure data (the CDK app imports them); the rest imports Powertools. Imports only shared/api.
//
// Writing the summary lines of log-fields.ts with the metrics of metric-names.ts in them:
// one line per invocation, every emitter using the declared names and dimensions.
import { Console } from 'node:console';
import { type Dimensions, emfMembers, emfSettingsFromEnvironment, type MetricRecord, metric } from './emf.ts';
import {
  AUTHORIZER_SUMMARY_MESSAGE,
  type AuthorizerSummary,
  REQUEST_SUMMARY_MESSAGE,
  type RequestSummary,
} from './log-fields.ts';
import { logger, tracer } from './powertools.ts';

export { type MetricRecord, metric };

const emf = emfSettingsFromEnvironment();
/** Where metrics go when the log level hides the summary line: stdout, as Powertools Metrics wrote. Made when first needed. */
let metricsOnly: Console | undefined;

/**
 * Whether the Logger prints INFO: fixed at init, as its level comes from the environment and
 * nothing here changes it. Asked once, not per line. (Powertools' debug sampling, which the
 * stack does not set, would lower a WARN level for some invocations; they would get the
 * metrics' line, not the summary.)
 */
const summaryPrints = ['TRACE', 'DEBUG', 'INFO'].includes(logger.getLevelName());

/** As Powertools decides it (its Utility class): only an on-demand environment's first invocation. */
let coldStart = process.env.AWS_LAMBDA_INITIALIZATION_TYPE?.trim() === 'on-demand';

/**
 * Powertools' ColdStart metric, as its `captureColdStartMetric` records it (the same name, `service`
 * and `function_name`), on the container's first invocation only; none after.
 */
export const coldStartMetrics = (functionName: string): MetricRecord[] => {
  if (!coldStart) return [];
  coldStart = false;
  return [metric('coldStart', { function_name: functionName } satisfies Dimensions)];
};

/**
 * The invocation's one line: its summary for on-call, which carries the invocation's metrics as EMF.
 * Should the log level hide INFO, the metrics are still written, on a line of their own.
 */
const writeSummary = (message: string, summary: object, metrics: readonly MetricRecord[]): void => {
  if (summaryPrints) {
    logger.info(message, { ...summary, ...emfMembers(metrics, emf) });
    return;
  }
  const members = emfMembers(metrics, emf, true);
  if (Object.keys(members).length === 0) return;
  metricsOnly ??= new Console({ stdout: process.stdout, stderr: process.stderr });
  metricsOnly.log(JSON.stringify(members));
};

export const logRequestSummary = (summary: RequestSummary, metrics: readonly MetricRecord[]): void =>
  writeSummary(REQUEST_SUMMARY_MESSAGE, summary, metrics);

export const logAuthorizerSummary = (summary: AuthorizerSummary, metrics: readonly MetricRecord[]): void =>
  writeSummary(AUTHORIZER_SUMMARY_MESSAGE, summary, metrics);

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
