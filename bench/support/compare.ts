// Side by side: two servers (the local stage and the baseline, or the same stage over
// a small and a large table) take turns on the same operation, in alternating order
// round after round, so that drift on a noisy machine (other processes, LevelDB
// compactions, JIT) lands on both. Each round gives one pair; the ratio reported is
// the median over the pairs, which a round spoiled by an outside burst cannot move.

import { type RequestSpec, runLoad } from '../../test/support/http-load.ts';
import { type LatencySummary, median, ratio, round, summarize } from './stats.ts';
import { countDelta, type Target } from './target-protocol.ts';

/** What a side's server process tells about itself: its DynamoDB requests and CPU time so far. */
type Measured = Pick<Target, 'requests' | 'cpu'>;

export interface Side {
  target: Measured;
  baseUrl: string;
  request: (i: number) => RequestSpec;
  /** The status every answer must have; anything else is a failed request. */
  expectedStatus: number;
}

export interface SideFigures extends LatencySummary {
  /** DynamoDB requests per API request, by `Command table` (client middleware) or operation (on the wire). */
  dynamodbRequestsPerRequest: Record<string, number>;
  /** CPU time of the server process per request (its embedded DynamoDB included): less noisy than latency. */
  cpuMsPerRequest: number;
  failed: number;
}

export interface Comparison {
  name: string;
  /** The reference side (the baseline, or the small table) and the side measured against it. */
  reference: SideFigures;
  measured: SideFigures;
  /** Median over rounds of measured ÷ reference, and each round's own ratio. */
  p50Ratio: number;
  p99Ratio: number;
  /** Requests per second and CPU time per request, measured ÷ reference, the same way. */
  rpsRatio: number;
  cpuRatio: number;
  p50RatioPerRound: number[];
  p99RatioPerRound: number[];
  rpsRatioPerRound: number[];
  cpuRatioPerRound: number[];
}

export interface CompareOptions {
  concurrency: number;
  roundMs: number;
  rounds: number;
  warmupMs: number;
}

interface Tally {
  latencies: number[];
  elapsedMs: number;
  failed: number;
  requests: Record<string, number>;
  cpuMicros: number;
}

interface RoundResult extends LatencySummary {
  cpuMicrosPerRequest: number;
}

const run = async (side: Side, options: CompareOptions, durationMs: number, tally?: Tally): Promise<RoundResult> => {
  const before = await side.target.requests();
  const cpuBefore = await side.target.cpu();
  const result = await runLoad({
    baseUrl: side.baseUrl,
    concurrency: options.concurrency,
    durationMs,
    next: side.request,
  });
  const cpuMicros = (await side.target.cpu()) - cpuBefore;
  const delta = countDelta(before, await side.target.requests());
  if (tally) {
    tally.cpuMicros += cpuMicros;
    tally.latencies.push(...result.latencies);
    tally.elapsedMs += result.elapsedMs;
    tally.failed += result.networkErrors;
    for (const [status, n] of Object.entries(result.statuses))
      if (Number(status) !== side.expectedStatus) tally.failed += n;
    for (const [key, n] of Object.entries(delta)) tally.requests[key] = (tally.requests[key] ?? 0) + n;
  }
  const summary = summarize(result.latencies, result.elapsedMs);
  return { ...summary, cpuMicrosPerRequest: cpuMicros / Math.max(1, summary.requests) };
};

export const compare = async (
  name: string,
  reference: Side,
  measured: Side,
  options: CompareOptions,
): Promise<Comparison> => {
  const tallies = [newTally(), newTally()] as const;
  const sides = [reference, measured] as const;
  const p50RatioPerRound: number[] = [];
  const p99RatioPerRound: number[] = [];
  const rpsRatioPerRound: number[] = [];
  const cpuRatioPerRound: number[] = [];
  for (const side of sides) await run(side, options, options.warmupMs);
  for (let r = 0; r < options.rounds; r++) {
    const order = r % 2 === 0 ? [0, 1] : [1, 0];
    const results: RoundResult[] = [];
    for (const i of order) results[i] = await run(sides[i]!, options, options.roundMs, tallies[i]);
    p50RatioPerRound.push(ratio(results[1]!.p50, results[0]!.p50));
    p99RatioPerRound.push(ratio(results[1]!.p99, results[0]!.p99));
    rpsRatioPerRound.push(ratio(results[1]!.requestsPerSecond, results[0]!.requestsPerSecond));
    cpuRatioPerRound.push(ratio(results[1]!.cpuMicrosPerRequest, results[0]!.cpuMicrosPerRequest));
  }
  return {
    name,
    reference: figures(tallies[0]),
    measured: figures(tallies[1]),
    p50Ratio: round(median(p50RatioPerRound)),
    p99Ratio: round(median(p99RatioPerRound)),
    rpsRatio: round(median(rpsRatioPerRound)),
    cpuRatio: round(median(cpuRatioPerRound)),
    p50RatioPerRound,
    p99RatioPerRound,
    rpsRatioPerRound,
    cpuRatioPerRound,
  };
};

const newTally = (): Tally => ({ latencies: [], elapsedMs: 0, failed: 0, requests: {}, cpuMicros: 0 });

const figures = (tally: Tally): SideFigures => {
  const summary = summarize(tally.latencies, tally.elapsedMs);
  return {
    ...summary,
    failed: tally.failed,
    cpuMsPerRequest: round(tally.cpuMicros / 1000 / summary.requests, 3),
    dynamodbRequestsPerRequest: Object.fromEntries(
      Object.entries(tally.requests).map(([key, n]) => [key, round(n / summary.requests, 3)]),
    ),
  };
};
