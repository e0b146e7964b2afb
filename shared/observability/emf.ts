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
 * How one sequence of metrics (their keys in the order recorded) fills a line, worked out once for
 * each sequence seen: its directives as JSON text (building the directives' objects anew for every
 * line, then serializing them, was a third of what its metrics cost: docs/performance.md, "Where a
 * function's CPU over the floor goes"), and its members (each dimension's and metric's value) as
 * slots, with each record's slots, so that a line fills an array by position where it wrote and
 * read an object by name (each a megamorphic lookup: ~8k instructions a getPet line in callgrind).
 * A tree of the sequences seen, one per namespace (and per whether `service` leads the members),
 * found by walking the keys: no key string is built per line.
 */
interface Sequence {
  readonly next: Map<MetricKey, Sequence>;
  plan?: Plan;
}
interface Plan {
  readonly directives: string;
  /** The members' names, in the order first recorded (`service` first when it is one). */
  readonly names: readonly string[];
  /** Each member's name as JSON with its colon: `"Latency":`. */
  readonly keys: readonly string[];
  /** Per record: its declared dimensions, and the slot of each. */
  readonly dimensions: readonly (readonly MetricDimension[])[];
  readonly dimensionSlots: readonly (readonly number[])[];
  /** Per record: its metric's slot. */
  readonly metricSlots: readonly number[];
  /** Every slot empty, to copy per line. */
  readonly empty: readonly unknown[];
}
/** An empty slot: unlike undefined, which a dimension may be given. */
const EMPTY = Symbol('no value');
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
const planOf = (records: readonly MetricRecord[], namespace: string, withService: boolean): Plan => {
  const directives = new Map<string, Directive>();
  const slots = new Map<string, number>(withService ? [['service', 0]] : []);
  const slotOf = (name: string): number => {
    let slot = slots.get(name);
    if (slot === undefined) {
      slot = slots.size;
      slots.set(name, slot);
    }
    return slot;
  };
  const dimensions: (readonly MetricDimension[])[] = [];
  const dimensionSlots: number[][] = [];
  const metricSlots: number[] = [];
  for (const { key } of records) {
    const { name, unit, dimensions: names } = METRICS[key];
    dimensions.push(names);
    dimensionSlots.push(names.map(slotOf));
    metricSlots.push(slotOf(name));
    const setKey = names.join();
    let directive = directives.get(setKey);
    if (!directive) {
      directive = { Namespace: namespace, Dimensions: [['service', ...names]], Metrics: [] };
      directives.set(setKey, directive);
    }
    if (!directive.Metrics.some((m) => m.Name === name)) directive.Metrics.push({ Name: name, Unit: unit });
  }
  const names = [...slots.keys()];
  return {
    directives: JSON.stringify([...directives.values()]),
    names,
    keys: names.map((name) => `${JSON.stringify(name)}:`),
    dimensions,
    dimensionSlots,
    metricSlots,
    empty: names.map(() => EMPTY),
  };
};

/**
 * The EMF members of a line: `_aws` (as JSON text), then each dimension's and each metric's value,
 * by slot of the sequence's plan.
 */
export interface EmfMembers {
  readonly aws: string;
  readonly plan: Plan;
  readonly values: readonly unknown[];
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
  let sequence = step(sequences, withService ? `service ${settings.namespace}` : settings.namespace);
  for (const { key } of records) sequence = step(sequence.next, key);
  sequence.plan ??= planOf(records, settings.namespace, withService);
  const plan = sequence.plan;
  const values = plan.empty.slice();
  if (withService) values[0] = settings.service;
  for (let i = 0; i < records.length; i++) {
    const { dimensions, value } = records[i]!;
    const names = plan.dimensions[i]!;
    const slots = plan.dimensionSlots[i]!;
    for (let j = 0; j < names.length; j++) {
      const given = dimensions[names[j]!];
      const slot = slots[j]!;
      const had = values[slot];
      // One line has one value per member: two metrics may share a dimension only with the same value.
      if (had !== EMPTY && had !== given) {
        throw new Error(`dimension ${names[j]} has two values in one line: ${String(had)}, ${given}`);
      }
      values[slot] = given;
    }
    const slot = plan.metricSlots[i]!;
    const recorded = values[slot];
    // EMF takes an array of values for a metric recorded more than once.
    values[slot] = recorded === EMPTY || recorded === undefined ? value : [...[recorded].flat(), value];
  }
  return { aws: `{"Timestamp":${Date.now()},"CloudWatchMetrics":${plan.directives}}`, plan, values };
};

/** The members' values by name (`service` and the dimensions, then the metrics), as an object. */
export const emfValues = ({ plan, values }: EmfMembers): Record<string, unknown> => {
  const object: Record<string, unknown> = {};
  for (let i = 0; i < values.length; i++) object[plan.names[i]!] = values[i];
  return object;
};

/** `,"name":value` as JSON.stringify writes the member (nothing for a value it leaves out). */
const memberText = (key: string, value: unknown): string => {
  // A finite number's JSON is its String().
  if (typeof value === 'number' && Number.isFinite(value)) return `,${key}${value}`;
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? '' : `,${key}${text}`;
};

/**
 * The members of `fields` with `members` merged in, as the JSON text between an object's braces:
 * exactly that of `JSON.stringify({ ...fields, _aws, ...values })` (a member `fields` has keeps its
 * place and takes the metric's value; the others follow, `_aws` first), with `_aws` written from its
 * text rather than serialized again. `fields` is the caller's own, made for this line: it is
 * written into rather than copied.
 */
export const emfMembersText = (fields: Record<string, unknown>, members: EmfMembers | undefined): string => {
  if (members === undefined) return JSON.stringify(fields).slice(1, -1);
  const { plan, values } = members;
  let tail = '';
  for (let i = 0; i < values.length; i++) {
    const name = plan.names[i]!;
    if (name in fields) fields[name] = values[i];
    else tail += memberText(plan.keys[i]!, values[i]);
  }
  const head = JSON.stringify(fields);
  const aws = `"_aws":${members.aws}${tail}`;
  return head.length > 2 ? `${head.slice(1, -1)},${aws}` : aws;
};

/** The same as a JSON object's text: exactly `JSON.stringify({ ...fields, _aws, ...values })`. */
export const withEmfMembers = (fields: Record<string, unknown>, members: EmfMembers | undefined): string =>
  members === undefined ? JSON.stringify(fields) : `{${emfMembersText(fields, members)}}`;
