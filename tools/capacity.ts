// docs/capacity.md's tables, computed: what one operation at a given rate asks of DynamoDB,
// Lambda, API Gateway and the bill, from the stage settings (infra/stages.ts) and the figures
// below. `npm run capacity` prints them for production at 10,000 requests per second;
// `npm run capacity -- --rate 2500 --stage staging --keys 200` for another case.
import { parseArgs } from 'node:util';
import { type DeployedStage, FUNCTION_TIMEOUT_SECONDS, type StageSettings, stageSettings } from '../infra/stages.ts';
import type { FunctionName, OperationId } from '../shared/api/routes.ts';
import { operationFacts } from './operations/index.ts';

/** AWS list prices, us-east-1, USD (checked 2026; other regions cost up to ~30 % more). */
export const PRICES = {
  apiGatewayPerMillion: 3.5, // REST API, first 333 million a month (cheaper tiers above)
  lambdaPerMillion: 0.2,
  lambdaArmPerGbSecond: 0.0000133334,
  dynamodbReadPerMillion: 0.125, // on-demand read request units
  dynamodbWritePerMillion: 0.625, // on-demand write request units
  logsPerGb: 0.5, // CloudWatch Logs ingestion
  xrayPerMillionTraces: 5,
  syntheticsPerRun: 0.0012, // a canary run, whatever its runtime
  alarmPerMetric: 0.1, // a standard-resolution alarm, per metric it reads (a metric-math alarm: each metric)
  compositeAlarm: 0.5,
  dashboardPerMonth: 3, // past the account's first three (of up to 50 metrics each), which are free
  secretPerMonth: 0.4,
  secretsApiPer10k: 0.05,
  lambdaX86PerGbSecond: 0.0000166667, // the canary's function: Synthetics picks x86_64
} as const;

/** Service quotas and hard limits the tables below are judged against (per account and region unless said). */
export const LIMITS = {
  apiGatewayAccountRps: 10_000, // adjustable; shared by every REST API of the account in the region
  apiGatewayAccountBurst: 5_000,
  lambdaAccountConcurrency: 1_000, // adjustable; new accounts may start lower
  lambdaUnreservedMinimum: 100, // Lambda keeps this much unreserved: reservations cannot take it
  lambdaScalingPer10s: 1_000, // new execution environments per function every 10 s
  dynamodbPartitionWcu: 1_000, // per partition (a partition key value with a rising sort key cannot split)
  dynamodbPartitionRcu: 3_000, // i.e. 6,000 eventually consistent 4 KB reads/s
  dynamodbTableReadUnits: 40_000, // on-demand table throughput quota, adjustable
  dynamodbTableWriteUnits: 40_000,
} as const;

/**
 * Mean Lambda duration (ms) of each function, deployed: what the service adds on top of its one
 * DynamoDB call, measured locally (docs/performance.md, Inputs to the capacity plan; each
 * operation's in tools/operations/), plus an in-region DynamoDB round trip (AWS: single-digit ms;
 * this is a mean with its tail).
 */
const DYNAMODB_ROUND_TRIP_MS = 8;
export const DURATIONS_MS = {
  ...(Object.fromEntries(
    Object.entries(operationFacts).map(([operation, { load }]) => [operation, load.serviceMs + DYNAMODB_ROUND_TRIP_MS]),
  ) as Record<OperationId, number>),
  authorizer: 6.1 + DYNAMODB_ROUND_TRIP_MS,
} as const satisfies Record<FunctionName, number>;
/** A cold start's extra time: the import measured (docs/performance.md, Inputs to the capacity plan), plus Lambda's own set-up. */
export const COLD_START_MS = 250;

/** An animal item: four attributes, a typical name of ~20 characters (at most 200). */
const ITEM_BYTES = 90;
/** One request's log lines: access log, the function's summary, Lambda's START/END/REPORT (docs/performance.md). */
const LOG_BYTES_PER_REQUEST = 1_080;
/** X-Ray's default sampling: the first request each second, then 5 %. */
const XRAY_SAMPLED = 0.05;

export interface OperationLoad {
  readonly operation: string;
  readonly dynamodbRequests: number;
  readonly readUnits: number;
  readonly writeUnits: number;
  /** Writes per second landing on one partition key value of the byStatus index (all creates in one status). */
  readonly indexWritesPerStatus: number;
  readonly concurrency: number;
  readonly costPerMillion: number;
}

const readUnits = (items: number, consistent = false) =>
  Math.ceil((items * ITEM_BYTES) / 4096) * (consistent ? 1 : 0.5);

export const operationLoads = (rate: number, memoryMb: number, pageSize = 20): OperationLoad[] => {
  // Every operation's line (tools/operations/: a new one without it is a type error), in the tables' order.
  return Object.entries(operationFacts).map(
    ([
      operation,
      {
        load: { dynamodbRequests, readItems, writeUnits: wu, indexWrites },
      },
    ]) => {
      const ru = readUnits(readItems === 'page' ? pageSize + 1 : readItems);
      const durationMs = DURATIONS_MS[operation as OperationId];
      const gbSeconds = (memoryMb / 1024) * (durationMs / 1000);
      const costPerMillion =
        PRICES.apiGatewayPerMillion +
        PRICES.lambdaPerMillion +
        gbSeconds * PRICES.lambdaArmPerGbSecond * 1e6 +
        ru * PRICES.dynamodbReadPerMillion +
        wu * PRICES.dynamodbWritePerMillion +
        (LOG_BYTES_PER_REQUEST / 1e9) * PRICES.logsPerGb * 1e6 +
        XRAY_SAMPLED * PRICES.xrayPerMillionTraces;
      return {
        operation,
        dynamodbRequests: rate * dynamodbRequests,
        readUnits: rate * ru,
        writeUnits: rate * wu,
        indexWritesPerStatus: rate * indexWrites,
        // Little's law: requests in flight = arrival rate × time each spends in the function.
        concurrency: Math.ceil(rate * (durationMs / 1000)),
        costPerMillion,
      };
    },
  );
};

/**
 * Authorizer invocations per second: API Gateway caches each key's answer for the TTL, so a
 * key in use costs one check per TTL; a made-up key is never cached and costs one per request.
 */
export const authorizerChecks = (activeKeys: number, ttlSeconds: number, unknownKeysPerSecond = 0): number =>
  activeKeys / ttlSeconds + unknownKeysPerSecond;

/**
 * Page reads per second one partition can serve: the first page of a listing always reads the
 * same items (the lowest ids of a status, or the start of the table for a Scan), which sit in
 * one partition whatever the table's size.
 */
export const firstPageCeiling = (pageSize = 20): number => LIMITS.dynamodbPartitionRcu / readUnits(pageSize + 1);

/** Index shards a status needs so that no partition key value takes more than `headroom` of its 1,000 WCU. */
export const shardsFor = (createsPerSecond: number, headroom = 0.7): number =>
  Math.max(1, Math.ceil(createsPerSecond / (LIMITS.dynamodbPartitionWcu * headroom)));

/** A sharded filtered page: one Query per shard (in parallel), each of pageSize + 1 items, merged by id. */
export const shardedPage = (shards: number, pageSize = 20) => ({
  queries: shards,
  readUnits: shards * readUnits(pageSize + 1),
});

/** Distinct first pages of the filtered listings: three statuses × limits 1 to 100. */
const FIRST_PAGE_KEYS = 3 * 100;
/** The plan's bar: no partition above 70 % of its ceiling. */
const HEADROOM = 0.7;

/**
 * Each partition's share of its ceiling at `rate` creates and `rate` filtered first pages a
 * second in one status: index writes spread over N shards; first pages read the lowest ids of
 * every shard, once per page without a cache, once per cache key and TTL with one.
 */
export const partitionShares = (rate: number, shards: number, cacheTtlSeconds: number, pageSize = 20) => {
  const firstPagesPerSecond = cacheTtlSeconds > 0 ? Math.min(rate, FIRST_PAGE_KEYS / cacheTtlSeconds) : rate;
  return {
    indexWrites: rate / shards / LIMITS.dynamodbPartitionWcu,
    // A shard's first page is one Query of pageSize + 1 items, whatever N; at limit=100 three times the units.
    firstPageReads: (firstPagesPerSecond * readUnits(pageSize + 1)) / LIMITS.dynamodbPartitionRcu,
  };
};

/** The smallest N, and the shortest whole-second cache TTL (0 = none), that keep every partition under 70 %. */
export const partitionPlan = (rate: number, pageSize = 20) => {
  const shards = shardsFor(rate, HEADROOM);
  let cacheTtlSeconds = 0;
  while (partitionShares(rate, shards, cacheTtlSeconds, pageSize).firstPageReads >= HEADROOM) cacheTtlSeconds++;
  return { shards, cacheTtlSeconds, ...partitionShares(rate, shards, cacheTtlSeconds, pageSize) };
};

/** A month, for the fixed monthly costs: 30 days. */
const MINUTES_PER_MONTH = 30 * 24 * 60;
/** A canary run of the read-only smoke checks: ~30 requests in a few seconds, on 1,000 MB (Synthetics' default). */
const CANARY_RUN_SECONDS = 5;
const CANARY_MEMORY_GB = 1000 / 1024;

/**
 * What watching one stage from outside costs a month, whatever its traffic: the smoke canary
 * (runs, its function's time, its key's secret) and the alarms of infra/monitoring/canary.ts
 * and slo.ts (each SLO alert: a long and a short window of two metrics each, and a composite).
 */
export const watchCostPerMonth = ({ canary }: Pick<StageSettings, 'canary'>) => {
  const runs = MINUTES_PER_MONTH / canary.everyMinutes;
  const sloAlerts = 2 * 2; // availability and latency, each a fast and a slow burn
  const items = {
    'canary runs': runs * PRICES.syntheticsPerRun,
    "canary's function": runs * CANARY_RUN_SECONDS * CANARY_MEMORY_GB * PRICES.lambdaX86PerGbSecond,
    "canary key's secret": PRICES.secretPerMonth + (runs / 10_000) * PRICES.secretsApiPer10k,
    'canary alarm': PRICES.alarmPerMetric,
    'SLO window alarms (2 per alert, 2 metrics each)': sloAlerts * 2 * 2 * PRICES.alarmPerMetric,
    'SLO alerts (composite alarms)': sloAlerts * PRICES.compositeAlarm,
  };
  return { runs, items, total: Object.values(items).reduce((sum, usd) => sum + usd, 0) };
};

/** What a stage's CloudWatch alarms and dashboards count in its synthesized template. */
export interface MonitoringCounts {
  /** The metrics its alarms read: one each, or each metric of a metric-math alarm. */
  readonly alarmMetrics: number;
  readonly dashboards: number;
}

/**
 * What a stage's own alarms (infra/monitoring: the stage's and the release alarms) and its
 * dashboard cost a month, whatever the traffic; counted in the synthesized template
 * (test/cdk/monitoring-cost.test.ts holds docs/capacity.md's table to it).
 */
export const monitoringCostPerMonth = ({ alarmMetrics, dashboards }: MonitoringCounts): number =>
  alarmMetrics * PRICES.alarmPerMetric + dashboards * PRICES.dashboardPerMonth;

const format = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      rate: { type: 'string', default: '10000' },
      stage: { type: 'string', default: 'production' },
      keys: { type: 'string', default: '1000' },
    },
  });
  const rate = Number(values.rate);
  const settings = stageSettings[values.stage as DeployedStage];
  if (!settings || !(rate > 0)) throw new Error('usage: capacity [--rate N] [--stage staging|production]');
  const loads = operationLoads(rate, settings.memoryMb);
  console.log(
    `Stage ${settings.stage}: ${format(rate)} requests/s per operation, ${settings.memoryMb} MB functions, timeout ${FUNCTION_TIMEOUT_SECONDS} s\n`,
  );
  console.log(
    '| operation | DynamoDB requests/s | RCU/s | WCU/s | byStatus writes/s per status | Lambda concurrency (Little) | USD per million requests |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const l of loads) {
    console.log(
      `| ${l.operation} | ${format(l.dynamodbRequests)} | ${format(l.readUnits)} | ${format(l.writeUnits)} | ${format(l.indexWritesPerStatus)} | ${format(l.concurrency)} | ${format(l.costPerMillion, 2)} |`,
    );
  }
  const total = loads.reduce((sum, l) => sum + l.concurrency, 0);
  const apiRate = rate * loads.length;
  console.log(
    `\nAll three: ${format(apiRate)} requests/s at API Gateway (account quota ${format(LIMITS.apiGatewayAccountRps)}; stage throttle ${format(settings.throttling.rateLimit)}),`,
  );
  console.log(
    `Lambda concurrency ${format(total)} mean (account quota ${format(LIMITS.lambdaAccountConcurrency)}; authorizer reserved ${settings.authorizerReservedConcurrency ?? 'none'}).`,
  );
  const checks = authorizerChecks(Number(values.keys), settings.authorizerCacheTtlSeconds);
  console.log(
    `Authorizer: ${format(Number(values.keys))} keys in use → ${format(checks, 1)} checks/s (cache ${settings.authorizerCacheTtlSeconds} s), ` +
      `concurrency ${format(Math.ceil(checks * (DURATIONS_MS.authorizer / 1000)), 0)}; its ${settings.authorizerReservedConcurrency} reserved take ` +
      `${format(settings.authorizerReservedConcurrency / (DURATIONS_MS.authorizer / 1000))} checks/s (made-up keys included).`,
  );
  console.log(
    `First pages: one partition serves ${format(firstPageCeiling())} first pages/s of one status (or of the unfiltered listing).`,
  );
  const plan = partitionPlan(rate);
  const page = shardedPage(plan.shards);
  console.log(
    `Status index: ${format(rate)} creates/s in one status need statusIndexShards ${plan.shards} (each key value at ${format(plan.indexWrites * 100)} % of 1,000 WCU; today ${settings.statusIndexShards}); a filtered page then costs ${page.queries} Queries and ${format(page.readUnits, 1)} RCU instead of 1 and ${format(shardedPage(1).readUnits, 1)}.`,
  );
  console.log(
    `First pages of one status at ${format(rate)}/s: a cache TTL of ${plan.cacheTtlSeconds} s keeps each shard's partition at ${format(plan.firstPageReads * 100)} % of 3,000 RCU (${format(partitionShares(rate, plan.shards, 0).firstPageReads * 100)} % without a cache).`,
  );
  const watch = watchCostPerMonth(settings);
  console.log(
    `\nWatching ${settings.stage} from outside, per month (${format(watch.runs)} canary runs, every ${settings.canary.everyMinutes} min):\n`,
  );
  console.log('| item | USD per month |');
  console.log('|---|---|');
  for (const [item, usd] of Object.entries(watch.items)) console.log(`| ${item} | ${format(usd, 2)} |`);
  console.log(`| **total** | **${format(watch.total, 2)}** |`);
}
