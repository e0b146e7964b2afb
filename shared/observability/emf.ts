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
 * The members that make a log line an EMF document holding `records`: `_aws` with one directive per
 * dimension set, each dimension's value, and each metric's value. `service` is a dimension of every
 * metric (as Powertools makes it); its value is the Logger's own `service` field, so it is left out
 * unless `withService`. Empty when metrics are disabled or there are none.
 */
export const emfMembers = (
  records: readonly MetricRecord[],
  settings: EmfSettings,
  withService = false,
): Record<string, unknown> => {
  if (settings.disabled || records.length === 0) return {};
  if (records.length > MAX_METRICS_PER_DOCUMENT) throw new Error(`at most ${MAX_METRICS_PER_DOCUMENT} metrics a line`);
  const members: Record<string, unknown> = withService ? { service: settings.service } : {};
  const directives = new Map<string, Directive>();
  for (const { key, dimensions, value } of records) {
    const { name, unit, dimensions: names } = METRICS[key];
    const setKey = names.join();
    let directive = directives.get(setKey);
    if (!directive) {
      directive = { Namespace: settings.namespace, Dimensions: [['service', ...names]], Metrics: [] };
      directives.set(setKey, directive);
    }
    for (const dimension of names) {
      const given = dimensions[dimension]!;
      // One line has one value per member: two metrics may share a dimension only with the same value.
      if (dimension in members && members[dimension] !== given) {
        throw new Error(`dimension ${dimension} has two values in one line: ${members[dimension]}, ${given}`);
      }
      members[dimension] = given;
    }
    const recorded = members[name];
    if (recorded === undefined) directive.Metrics.push({ Name: name, Unit: unit });
    // EMF takes an array of values for a metric recorded more than once.
    members[name] = recorded === undefined ? value : [...[recorded].flat(), value];
  }
  return { _aws: { Timestamp: Date.now(), CloudWatchMetrics: [...directives.values()] }, ...members };
};
