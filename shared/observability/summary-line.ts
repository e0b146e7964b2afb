// The one line an invocation writes for on-call, built here rather than by Powertools Logger.
//
// Why not `logger.info()`, which wrote it before: per line, the Logger reads the environment
// (TZ, and the trace header twice), merges the line's fields into a fresh object, copies it again
// to drop empty keys, and serializes it through a replacer function called for every key and
// value of the line, the EMF directives included; built here the line costs what JSON.stringify
// costs. What that saves per invocation, with emf.ts: docs/performance.md, "Functions alone"
// (`bench/observability-cost.ts`, at commit 921b850).
//
// What the line carries stays Powertools' own: the fields its formatter (PowertoolsLogFormatter)
// puts on every line, with the same names and values, so that no saved query, metric filter or
// reader can tell the two apart (test/integration/dynamodb-faults.test.ts compares the summary
// with a Powertools line of the same invocation). They come from the invocation's own context,
// not from the Logger's, which one process shares between functions on the local stage: there,
// two overlapping invocations of different functions each name their own function.
// Every other line (warnings, errors with their stacks) still goes through the Logger.
import { getNumberFromEnv, getStringFromEnv, getXRayTraceIdFromEnv } from '@aws-lambda-powertools/commons/utils/env';
import type { Context } from 'aws-lambda';

/** Fixed for the life of the container: read once, as the Logger reads them at init. */
const SERVICE = getStringFromEnv({ key: 'POWERTOOLS_SERVICE_NAME', defaultValue: '' }) || 'service_undefined';
const sampleRate = getNumberFromEnv({ key: 'POWERTOOLS_LOGGER_SAMPLE_RATE', defaultValue: 0 });
const SAMPLING_RATE = sampleRate >= 0 && sampleRate <= 1 ? sampleRate : 0;

/** One invocation of a function, from its start: what its summary line says of it. */
export interface Invocation {
  readonly context: Context;
  /** The container's first invocation (as Powertools decides it: on-demand initialization only). */
  readonly coldStart: boolean;
  /** performance.now() when it began. */
  readonly startedAt: number;
}

/**
 * The JSON line Powertools Logger would print for `logger.info(message, fields)` during
 * `invocation`, at INFO. The timestamp is always UTC: Lambda's TZ is UTC, and CloudWatch reads either.
 */
export const summaryLine = (message: string, { context, coldStart }: Invocation, fields: object): string =>
  JSON.stringify({
    level: 'INFO',
    message,
    timestamp: new Date().toISOString(),
    service: SERVICE,
    cold_start: coldStart,
    function_arn: context.invokedFunctionArn,
    function_memory_size: context.memoryLimitInMB,
    function_name: context.functionName,
    function_request_id: context.awsRequestId,
    sampling_rate: SAMPLING_RATE,
    // The Root of the trace header Lambda sets per invocation; absent (left out) when there is none.
    xray_trace_id: getXRayTraceIdFromEnv(),
    tenant_id: context.tenantId,
    ...fields,
  });
