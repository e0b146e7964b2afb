// docs/capacity.md's figures come from tools/capacity.ts: pin the arithmetic they rest on.
import { expect, test } from 'vitest';
import { type OperationId, routes } from '../../shared/api/routes.ts';
import {
  authorizerChecks,
  DURATIONS_MS,
  firstPageCeiling,
  operationLoads,
  partitionPlan,
  partitionShares,
  shardedPage,
  shardsFor,
  watchCostPerMonth,
} from '../../tools/capacity.ts';

test("Little's law: each operation's concurrency is the rate times its mean duration", () => {
  const loads = operationLoads(10_000, 1024);
  expect(loads.map((l) => l.operation).sort()).toEqual(routes.map((r) => r.operationId).sort());
  for (const { operation, concurrency } of loads)
    expect(concurrency, operation).toBe(Math.ceil(10_000 * (DURATIONS_MS[operation as OperationId] / 1000)));
});

test('a create writes the item and its index entry (2 WCU), plus the id block once per 100', () => {
  const create = operationLoads(1_000, 1024).find((l) => l.operation === 'createPet')!;
  expect(create.writeUnits).toBeCloseTo(2_010);
  expect(create.indexWritesPerStatus).toBe(1_000);
});

test('the byStatus index: one shard up to 700 creates/s a status, 15 at 10,000; a page then costs a Query per shard', () => {
  expect(shardsFor(700)).toBe(1);
  expect(shardsFor(701)).toBe(2);
  expect(shardsFor(10_000)).toBe(15);
  expect(shardedPage(1)).toEqual({ queries: 1, readUnits: 0.5 });
  expect(shardedPage(15)).toEqual({ queries: 15, readUnits: 7.5 });
});

test('the authorizer checks each key once per cache TTL, and every made-up key', () => {
  expect(authorizerChecks(3_000, 300)).toBe(10);
  expect(authorizerChecks(3_000, 300, 500)).toBe(510);
  expect(firstPageCeiling()).toBe(6_000);
});

test('watching a stage from outside: a canary run every 5 minutes is 8,640 runs a month, most of the cost', () => {
  const { runs, items, total } = watchCostPerMonth({ canary: { everyMinutes: 5, failedRunsToAlarm: 2 } });
  expect(runs).toBe(8_640);
  expect(items['canary runs']).toBeCloseTo(10.368);
  // 4 SLO alerts: 8 window alarms of 2 metrics at $0.10, 4 composites at $0.50.
  expect(items['SLO window alarms (2 per alert, 2 metrics each)']).toBeCloseTo(1.6);
  expect(items['SLO alerts (composite alarms)']).toBeCloseTo(2);
  expect(total).toBeCloseTo(Object.values(items).reduce((a, b) => a + b, 0));
  expect(watchCostPerMonth({ canary: { everyMinutes: 10, failedRunsToAlarm: 2 } }).runs).toBe(4_320);
});

test('the 10,000-per-second plan: 15 shards and a 1 s first-page cache keep every partition under 70 %', () => {
  const plan = partitionPlan(10_000);
  expect(plan).toMatchObject({ shards: 15, cacheTtlSeconds: 1 });
  expect(plan.indexWrites).toBeLessThan(0.7);
  expect(plan.firstPageReads).toBeLessThan(0.7);
  // Without the cache every first page reads each shard's partition: over its ceiling whatever N.
  expect(partitionShares(10_000, 15, 0).firstPageReads).toBeGreaterThan(1);
  // At 700 creates/s one shard is enough, and no cache is needed.
  expect(partitionPlan(700)).toMatchObject({ shards: 1, cacheTtlSeconds: 0 });
});
