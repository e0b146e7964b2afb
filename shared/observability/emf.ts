// The metrics of one invocation as CloudWatch Embedded Metric Format members of its summary
// line, so that a request writes one line, which on-call reads and CloudWatch counts.
//
// Why not Powertools Metrics, which the functions used before: it writes each dimension set on a
// line of its own (one directive per EMF document), and an invocation's metrics have up to four
// (Latency by operation, Requests by status class, DeprecatedCalls by key id, ColdStart by function
// name), so a getPet call wrote three or four lines. EMF lets one document carry several
// directives beside any other fields: here they ride on the summary line. What that saves, in CPU
// per invocation and in log bytes billed, with summary-line.ts: docs/performance.md, "Functions
// alone" (`bench/observability-cost.ts`, at commit 921b850). test/unit/emf.test.ts holds each metric to the line
// Powertools Metrics writes for it. The names, units and dimension sets stay those of
// metric-names.ts, which the alarms read.
import { getBooleanFromEnv, isDevMode } from '@aws-lambda-powertools/commons/utils/env';
import { assertDimensions, METRICS, type MetricDimension, type MetricKey, SERVICE_NAME } from './metric-names.ts';

export type Dimensions = Partial<Record<MetricDimension, string>>;

export interface MetricRecord {
  readonly key: MetricKey;
  readonly dimensions: Dimensions;
  readonly value: number;
}

/** One metric of the invocation, with exactly its declared dimensions (it throws otherwise). */
export const metric = (key: MetricKey, dimensions: Dimensions, value = 1): MetricRecord => {
  assertDimensions(key, dimensions);
  return { key, dimensions, value };
};

/**
 * A metric whose dimensions are fixed (a function's operation, say): checked once, here, and each
 * value's record made without checking them again. The records share `dimensions`, which is only read.
 */
export const metricWith = (key: MetricKey, dimensions: Dimensions): ((value: number) => MetricRecord) => {
  assertDimensions(key, dimensions);
  return (value) => ({ key, dimensions, value });
};

/** EMF's own limit on the metrics of one document. */
const MAX_METRICS_PER_DOCUMENT = 100;

interface Directive {
  Namespace: string;
  Dimensions: string[][];
  Metrics: { Name: string; Unit: string }[];
}

export interface EmfSettings {
  readonly namespace: string;
  readonly service: string;
  /** Powertools' switches: POWERTOOLS_METRICS_DISABLED, else POWERTOOLS_DEV. */
  readonly disabled: boolean;
}

/** As Powertools Metrics reads them, once: a function's environment does not change while it runs. */
export const emfSettingsFromEnvironment = (): EmfSettings => ({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'default_namespace',
  service: process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME,
  disabled:
    process.env.POWERTOOLS_METRICS_DISABLED === undefined
      ? isDevMode()
      : getBooleanFromEnv({ key: 'POWERTOOLS_METRICS_DISABLED', defaultValue: false }),
});

/**
 * The directives of one sequence of metrics (their keys in the order recorded) in one namespace,
 * as JSON text made once: an invocation records one of a handful of sequences, and building the
 * directives' objects anew for every line, then serializing them, was a third of what its metrics
 * cost (docs/performance.md, "Where a function's CPU over the floor goes"). A tree of the sequences
 * seen, one per namespace, found by walking the keys: no key string is built per line.
 */
interface Sequence {
  readonly next: Map<MetricKey, Sequence>;
  directives?: string;
}
const sequences = new Map<string, Sequence>();
/** The sequence `key` leads to in `from`, made when first seen. */
const step = <K>(from: Map<K, Sequence>, key: K): Sequence => {
  let next = from.get(key);
  if (next === undefined) {
    next = { next: new Map() };
    from.set(key, next);
  }
  return next;
};
const directivesOf = (records: readonly MetricRecord[], namespace: string): string => {
  const directives = new Map<string, Directive>();
  for (const { key } of records) {
    const { name, unit, dimensions: names } = METRICS[key];
    const setKey = names.join();
    let directive = directives.get(setKey);
    if (!directive) {
      directive = { Namespace: namespace, Dimensions: [['service', ...names]], Metrics: [] };
      directives.set(setKey, directive);
    }
    if (!directive.Metrics.some((m) => m.Name === name)) directive.Metrics.push({ Name: name, Unit: unit });
  }
  return JSON.stringify([...directives.values()]);
};

/** The EMF members of a line: `_aws` (as JSON text), then each dimension's and each metric's value. */
export interface EmfMembers {
  readonly aws: string;
  readonly values: Readonly<Record<string, unknown>>;
}

/**
 * The members that make a log line an EMF document holding `records`: `_aws` with one directive per
 * dimension set, each dimension's value, and each metric's value. `service` is a dimension of every
 * metric (as Powertools makes it); its value is the Logger's own `service` field, so it is left out
 * unless `withService`. Undefined when metrics are disabled or there are none.
 */
export const emfMembers = (
  records: readonly MetricRecord[],
  settings: EmfSettings,
  withService = false,
): EmfMembers | undefined => {
  if (settings.disabled || records.length === 0) return undefined;
  if (records.length > MAX_METRICS_PER_DOCUMENT) throw new Error(`at most ${MAX_METRICS_PER_DOCUMENT} metrics a line`);
  const values: Record<string, unknown> = withService ? { service: settings.service } : {};
  let sequence = step(sequences, settings.namespace);
  for (const { key, dimensions, value } of records) {
    const { name, dimensions: names } = METRICS[key];
    sequence = step(sequence.next, key);
    for (const dimension of names) {
      const given = dimensions[dimension]!;
      // One line has one value per member: two metrics may share a dimension only with the same value.
      if (dimension in values && values[dimension] !== given) {
        throw new Error(`dimension ${dimension} has two values in one line: ${values[dimension]}, ${given}`);
      }
      values[dimension] = given;
    }
    const recorded = values[name];
    // EMF takes an array of values for a metric recorded more than once.
    values[name] = recorded === undefined ? value : [...[recorded].flat(), value];
  }
  sequence.directives ??= directivesOf(records, settings.namespace);
  const directives = sequence.directives;
  return { aws: `{"Timestamp":${Date.now()},"CloudWatchMetrics":${directives}}`, values };
};

/**
 * `fields` with `members` merged in, as JSON text: exactly `JSON.stringify({ ...fields, _aws,
 * ...values })` (a member `fields` has keeps its place and takes the metric's value; the others
 * follow, `_aws` first), with `_aws` written from its text rather than serialized again. `fields`
 * is the caller's own, made for this line: it is written into rather than copied.
 */
export const withEmfMembers = (fields: Record<string, unknown>, members: EmfMembers | undefined): string => {
  if (members === undefined) return JSON.stringify(fields);
  let added: Record<string, unknown> | undefined;
  for (const name in members.values) {
    if (name in fields) fields[name] = members.values[name];
    else {
      added ??= {};
      added[name] = members.values[name];
    }
  }
  const head = JSON.stringify(fields);
  const aws = `"_aws":${members.aws}`;
  const tail = added === undefined ? '}' : `,${JSON.stringify(added).slice(1)}`;
  return head.length > 2 ? `${head.slice(0, -1)},${aws}${tail}` : `{${aws}${tail}`;
};
