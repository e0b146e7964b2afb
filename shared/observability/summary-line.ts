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
import { getNumberFromEnv, getStringFromEnv } from '@aws-lambda-powertools/commons/utils/env';
import type { Context } from 'aws-lambda';
import { isoNow } from './clock.ts';

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
  /**
   * The Root of the trace header Lambda set for it (Powertools' `xray_trace_id`), read once as it
   * began (xray.ts, beginTrace); undefined when there is none.
   */
  readonly traceId: string | undefined;
}

/**
 * The part of a line fixed for one function (its ARN as invoked, its memory and name), up to the
 * request id's value: made once per ARN, as JSON, instead of serialized again on every line.
 */
const functionParts = new Map<string, string>();
const functionPart = (context: Context): string => {
  let part = functionParts.get(context.invokedFunctionArn);
  if (part === undefined) {
    part = `,"function_arn":${JSON.stringify(context.invokedFunctionArn)},"function_memory_size":${JSON.stringify(context.memoryLimitInMB)},"function_name":${JSON.stringify(context.functionName)},"function_request_id":`;
    functionParts.set(context.invokedFunctionArn, part);
  }
  return part;
};
/** The start of a line of each message, up to the timestamp's value; made once per message. */
const messageParts = new Map<string, string>();
const messagePart = (message: string): string => {
  let part = messageParts.get(message);
  if (part === undefined) {
    part = `{"level":"INFO","message":${JSON.stringify(message)},"timestamp":"`;
    messageParts.set(message, part);
  }
  return part;
};
const SERVICE_PART = `","service":${JSON.stringify(SERVICE)},"cold_start":`;
const [COLD_PART, WARM_PART] = [`${SERVICE_PART}true`, `${SERVICE_PART}false`];
const SAMPLING_PART = `,"sampling_rate":${JSON.stringify(SAMPLING_RATE)}`;

/**
 * The JSON line Powertools Logger would print for `logger.info(message, fields)` during
 * `invocation`, at INFO, the same members in the same order, each serialized as JSON.stringify
 * would (an undefined one left out). Written as text around `fields`' own JSON rather than by
 * serializing one merged object: what is fixed per function and per message is serialized once
 * (functionPart, messagePart), and no object is copied. The timestamp is always UTC: Lambda's TZ
 * is UTC, and CloudWatch reads either.
 */
export const summaryLine = (message: string, invocation: Invocation, fields: object): string =>
  summaryLineOf(message, invocation, JSON.stringify(fields).slice(1, -1));

/**
 * The same line around `members`, the JSON text of its fields between their object's braces (empty
 * for none), serialized by the caller; `end` follows the line's closing brace (a newline, say).
 */
export const summaryLineOf = (
  message: string,
  { context, coldStart, traceId: trace }: Invocation,
  members: string,
  end = '',
) => {
  const tenant = context.tenantId;
  return (
    messagePart(message) +
    isoNow() +
    (coldStart ? COLD_PART : WARM_PART) +
    functionPart(context) +
    JSON.stringify(context.awsRequestId) +
    SAMPLING_PART +
    (trace === undefined ? '' : `,"xray_trace_id":${JSON.stringify(trace)}`) +
    (tenant === undefined ? '' : `,"tenant_id":${JSON.stringify(tenant)}`) +
    (members.length > 0 ? `,${members}}${end}` : `}${end}`)
  );
};
