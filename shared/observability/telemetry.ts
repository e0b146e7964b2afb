// shared/observability — what on-call reads: the container's Powertools Logger (powertools.ts),
// the traces of sampled invocations (xray.ts), the metric names and dimensions (metric-names.ts) and log fields
// (log-fields.ts) that the CDK alarms and saved queries read too, the metrics as EMF
// (emf.ts) on the summary line (summary-line.ts), and the helpers that write them (this file). metric-names.ts and log-fields.ts
// are pure data (the CDK app imports them); the rest imports Powertools. Imports only shared/api.
//
// Writing the summary lines of log-fields.ts with the metrics of metric-names.ts in them:
// one line per invocation, every emitter using the declared names and dimensions.
import { Utility } from '@aws-lambda-powertools/commons';
import type { Context } from 'aws-lambda';
import {
  type Dimensions,
  emfMembers,
  emfMembersText,
  emfSettingsFromEnvironment,
  emfValues,
  type MetricRecord,
  metric,
  metricWith,
  withEmfMembers,
} from './emf.ts';
import {
  AUTHORIZER_SUMMARY_MESSAGE,
  type AuthorizerSummary,
  type CodeVersion,
  ENVIRONMENT_START_MESSAGE,
  REQUEST_SUMMARY_MESSAGE,
  type RequestInputs,
  type RequestSummary,
} from './log-fields.ts';
import { infoEnabled, logDegraded, loggerFor, warnEnabled } from './powertools.ts';
import { sourceCommit } from './source-commit.ts';
import { type Invocation, summaryLine, summaryLineOf } from './summary-line.ts';
import { annotate, isTraced } from './xray.ts';

export { type Invocation, type MetricRecord, metric, metricWith };

const emf = emfSettingsFromEnvironment();

/**
 * Whether the summary line prints: the Logger's level lets INFO through. (Powertools' debug
 * sampling, which the stack does not set, would lower a WARN level for some invocations; they
 * would get the metrics' line, not the summary.)
 */
const summaryPrints = infoEnabled;

/** Powertools' own cold-start rule (its Utility class): only an on-demand environment's first invocation. */
class Container extends Utility {
  readonly isColdStartInvocation = (): boolean => this.getColdStart();
}
const container = new Container();

/** The version and commit of the code `context` runs. */
export const codeVersion = (context: Context): CodeVersion => ({
  executedVersion: context.functionVersion,
  commit: sourceCommit(),
});

/**
 * The same for a line no invocation's context reaches (a listing's best-effort re-read, which may
 * fail after its invocation answered): the container's version, which Lambda sets in
 * AWS_LAMBDA_FUNCTION_VERSION and which is its invocations' functionVersion
 * (https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html#configuration-envvars-runtime);
 * `$LATEST` on the local stage, whose functions' contexts say the same (infra/local/lambda-runtime.ts).
 */
export const containerCodeVersion = (): CodeVersion => ({
  executedVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION || '$LATEST',
  commit: sourceCommit(),
});

/**
 * Functions that wrote their deploy marker in this process. Deployed, an execution environment
 * runs one function, so this holds one name; the local stage runs every function in one process.
 */
const started = new Set<string>();

/**
 * The deploy marker: before anything else a function writes in a new execution environment, one
 * line naming the version and commit it runs (its first invocation's context says which version:
 * the environment has no other). Written at INFO, like the summary lines.
 */
const markEnvironmentStart = (invocation: Invocation): void => {
  const { functionName } = invocation.context;
  if (started.has(functionName)) return;
  started.add(functionName);
  if (summaryPrints)
    process.stdout.write(`${summaryLine(ENVIRONMENT_START_MESSAGE, invocation, codeVersion(invocation.context))}\n`);
};

/**
 * Called as an invocation begins: the first one of the container is its cold start. `traceId`: the
 * Root of its trace header, as beginTrace read it (xray.ts), undefined when there is none.
 */
export const startInvocation = (context: Context, traceId: string | undefined): Invocation => {
  const invocation = { context, coldStart: container.isColdStartInvocation(), startedAt: performance.now(), traceId };
  markEnvironmentStart(invocation);
  return invocation;
};

/**
 * Powertools' ColdStart metric, as its `captureColdStartMetric` records it (the same name, `service`
 * and `function_name`), on the container's first invocation only; none after.
 */
export const coldStartMetrics = ({ coldStart, context }: Invocation): MetricRecord[] =>
  coldStart ? [metric('coldStart', { function_name: context.functionName } satisfies Dimensions)] : [];

/**
 * The invocation's one line: its summary for on-call, which carries the invocation's metrics as EMF.
 * Should the log level hide INFO, the metrics are still written, on a line of their own. Both go to
 * stdout, where Powertools writes its INFO lines. `summary` is made for this line by its caller:
 * the metrics' values are written into it (withEmfMembers), not into a copy.
 */
const writeSummary = (
  message: string,
  invocation: Invocation,
  summary: object,
  metrics: readonly MetricRecord[],
): void => {
  if (summaryPrints) {
    // Merged only when there are metrics to carry (deployed): the local stage's lines have none.
    const members = emfMembersText(summary as Record<string, unknown>, emfMembers(metrics, emf));
    process.stdout.write(summaryLineOf(message, invocation, members, '\n'));
    return;
  }
  const members = emfMembers(metrics, emf, true);
  if (members !== undefined) process.stdout.write(`${withEmfMembers({}, members)}\n`);
};

export const logRequestSummary = (
  invocation: Invocation,
  summary: RequestSummary,
  metrics: readonly MetricRecord[],
): void => writeSummary(REQUEST_SUMMARY_MESSAGE, invocation, summary, metrics);

export const logAuthorizerSummary = (
  invocation: Invocation,
  summary: AuthorizerSummary,
  metrics: readonly MetricRecord[],
): void => writeSummary(AUTHORIZER_SUMMARY_MESSAGE, invocation, summary, metrics);

/**
 * A fault's line, through Powertools Logger (its Error formatting: name, message, stack and
 * cause), with the invocation's context and the request's ids, as every line of a request has.
 */
export const logFault = (
  invocation: Invocation,
  message: string,
  error: unknown,
  ids: { requestId?: string | undefined; keyId?: string | undefined } & Partial<RequestInputs>,
): void => {
  const logger = loggerFor(invocation.context, invocation.coldStart);
  logger.appendKeys(ids);
  logger.error(message, { error });
  logger.resetKeys();
};

/**
 * A step that failed without failing the request (a listing's best-effort re-read of the shard
 * record, shared/dynamodb/shard-count.ts; the authorizer's record of a key's last use): one WARN
 * line with the error and `fields` (ids, never a key), which carries `metrics` as EMF so that
 * CloudWatch counts what on-call would otherwise only find by reading. Should the log level hide
 * WARN, the metrics are still written, on a line of their own (as writeSummary's).
 */
export const logDegradedStep = (
  message: string,
  error: unknown,
  metrics: readonly MetricRecord[],
  fields: object = {},
): void => {
  const members = emfMembers(metrics, emf, !warnEnabled);
  if (warnEnabled) {
    // `_aws` is an object on the line, as EMF reads it: parsed back from its text, on a failure only.
    const emfFields = members && { _aws: JSON.parse(members.aws) as unknown, ...emfValues(members) };
    logDegraded(message, { ...fields, error, ...emfFields });
    return;
  }
  if (members !== undefined) process.stdout.write(`${withEmfMembers({}, members)}\n`);
};

/**
 * Indexed X-Ray annotations of the invocation's trace, so that a trace can be found by the
 * client's requestId, the operation or the caller's key id (never the key), and ColdStart as
 * Powertools Tracer annotated it. A no-op unless the invocation is sampled (xray.ts).
 */
export const annotateTrace = (
  { coldStart }: Invocation,
  annotations: { operation: string; keyId?: string | undefined; requestId?: string },
): void => {
  // Unsampled (most invocations), no merged copy is made only to be dropped.
  if (isTraced()) annotate({ ColdStart: coldStart, ...annotations });
};

/** Milliseconds since the invocation began, to 0.01 ms. */
export const elapsedMs = ({ startedAt }: Invocation): number => Math.round((performance.now() - startedAt) * 100) / 100;
