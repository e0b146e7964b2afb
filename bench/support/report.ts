// The side-by-side parts' printed tables and their targets (issue 30's), for `npm run bench`.
import type { OperationId } from '../../shared/api/routes.ts';
import { operationLoads } from '../../tools/capacity.ts';
import type { Comparison } from './side-by-side.ts';
import { atLeast, atMost, counts, round, type Target, table } from './stats.ts';

/**
 * DynamoDB requests per API request at `npm start`'s defaults, key lookups included (cached):
 * each operation's as the capacity plan counts them (tools/capacity.ts), one home for both.
 */
const DYNAMODB_REQUESTS = Object.fromEntries(operationLoads(1, 1024).map((l) => [l.operation, l.dynamodbRequests]));

/** Issue 44's, against the independent floor (plain dynalite); issue 30's before them, against our own. */
const T = {
  readRpsRatioAtLeast: 0.9,
  createRpsRatioAtLeast: 0.85,
  readCpuRatioAtMost: 1.15,
  createCpuRatioAtMost: 1.2,
  p99RatioAtMost: 1.3,
  /** getPet on one connection: p50 over the bare server's, in ms. */
  singleP50DeltaMs: 0.1,
  /** The server process's RSS, under the load and after it. */
  rssMB: 200,
  filteredP50RatioLargeToSmall: 1.2,
} as const;

/** Part 1's targets are `npm start`'s (the second side), against the first side's: the bare server on plain dynalite. */
export const serverTargets = (c: Comparison): Target[] => {
  const name = `${c.name}, ${c.connections} conn.`;
  const [bare, user] = c.sides as [Comparison['sides'][0], Comparison['sides'][0]];
  const ratio = c.ratios[user.name]!;
  if (c.connections === 1)
    return [atMost(`${name}: p50 − bare p50 (ms)`, round(user.p50.median - bare.p50.median), T.singleP50DeltaMs)];
  const operation = c.name.split(' ')[0] as OperationId;
  const create = operation === 'createPet';
  // DynamoDB requests to two digits, as the target is given: one id block of 100 per container is 1.01 over a long run.
  const dynamodb = round(user.dynamodbPerRequest);
  return [
    atMost(`${name}: DynamoDB requests per API request`, dynamodb, DYNAMODB_REQUESTS[operation]!),
    atLeast(`${name}: req/s ÷ bare`, ratio.rps.median, create ? T.createRpsRatioAtLeast : T.readRpsRatioAtLeast),
    atMost(`${name}: p99 ÷ bare`, ratio.p99.median, T.p99RatioAtMost),
    atMost(`${name}: CPU/request ÷ bare`, ratio.cpu.median, create ? T.createCpuRatioAtMost : T.readCpuRatioAtMost),
    atMost(`${name}: RSS of npm start's process, under load (MB)`, user.rssMB, T.rssMB),
  ];
};

export const rssAtRestTarget = (rssAtRestMB: number) =>
  atMost("RSS of npm start's process at rest after the load (MB)", rssAtRestMB, T.rssMB);
export const scalingTarget = (c: Comparison) =>
  atMost(`${c.name}: p50, large ÷ small table`, c.ratios.large!.p50.median, T.filteredP50RatioLargeToSmall);

/** Per comparison a row per side, then each other side ÷ the first. */
export const comparisonTable = (comparisons: Comparison[]) =>
  table([
    '|conn.||req/s|p50 ms|p99 ms|CPU ms/req|RSS MB|DynamoDB/req|answers'.split('|'),
    ...comparisons.flatMap((c) => [
      ...c.sides.map((side, i) => [
        ...(i === 0 ? [c.name, c.connections] : ['', '']),
        ...[side.name, side.rps, side.p50, side.p99, side.cpuMsPerRequest],
        ...[side.rssMB, side.dynamodbPerRequest, counts(side.statuses)],
      ]),
      ...[
        ...Object.entries(c.ratios).map(([name, r]) => [`${name} ÷ ${c.sides[0]!.name}`, r] as const),
        ...Object.entries(c.alsoRatios).map(([name, r]) => [`${name} ÷ ${c.alsoReference}`, r] as const),
      ].map(([name, r]) => [...['', '', name, r.rps, r.p50, r.p99, r.cpu], ...['', '', '']]),
    ]),
  ]);

/** Every side that got an answer but the route's own: a 429 or a 415 is a refusal measured, not the route. */
export const failures = (comparisons: Comparison[]) =>
  comparisons.flatMap((c) =>
    c.sides
      .filter((side) => side.failed)
      .map((side) => `${c.name}, ${side.name}: ${side.failed} failed requests (answers: ${counts(side.statuses)})`),
  );
