// Side by side: servers take turns under the same load, in rotating order round after round
// (stats.ts's inTurns); autocannon drives each turn and times every answer, each server's probe
// gives its DynamoDB requests (on the wire), CPU time and RSS over the turn. A figure is the median
// over the rounds with their range; a ratio, the median of the rounds' ratios to the first side's.
import autocannon from 'autocannon';
import type { RequestSpec } from '../../tools/harness/http-client.ts';
import { type Probe, requestsBetween } from '../../tools/harness/probe-client.ts';
import { ascending, inTurns, percentile, ratios, round, type Spread, spread } from './stats.ts';

export interface Side {
  name: string;
  server: { baseUrl: string; probe: Probe };
  /** The i-th request of a turn; its path is below the server's base URL. */
  request: (i: number) => RequestSpec;
  /** Any other answer is a failed request. */
  expectedStatus: number;
}

export interface LoadOptions {
  connections: number;
  rounds: number;
  roundSeconds: number;
  warmupSeconds: number;
}

/** `spec` as autocannon sends it: its path below `baseUrl`'s. */
export const autocannonRequest = (baseUrl: string, spec: RequestSpec, request: autocannon.Request = {}) => ({
  ...request,
  ...spec,
  path: new URL(baseUrl).pathname + spec.path,
  method: spec.method as autocannon.Request['method'],
});

/**
 * One side's turn: for `seconds` (the warm-up), or for `amount` requests, each answered before
 * the turn ends, so that the DynamoDB requests on the wire are those of the requests counted.
 */
const turn = async (side: Side, connections: number, size: { seconds: number } | { amount: number }) => {
  const { baseUrl, probe } = side.server;
  const [requestsBefore, cpuBefore] = await Promise.all([probe.dynamodbRequests(), probe.cpuMicros()]);
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let i = 0;
  const started = performance.now();
  let lastAnswer = started;
  // Without a callback, autocannon's instance is also a promise of its result (its README).
  const instance = autocannon({
    url: baseUrl,
    connections,
    sampleInt: 50, // it notices that every request was answered at its next sample only
    ...('amount' in size ? { amount: size.amount } : { duration: size.seconds }),
    requests: [{ setupRequest: (request) => autocannonRequest(baseUrl, side.request(i++), request) }],
  }) as unknown as autocannon.Instance & Promise<autocannon.Result>;
  // Each answer's own time, from autocannon's event: its histogram keeps whole milliseconds, too coarse here.
  instance.on('response', (_client, status, _bytes, ms) => {
    latencies.push(ms);
    lastAnswer = performance.now();
    statuses[status] = (statuses[status] ?? 0) + 1;
  });
  const result = await instance;
  const [requestsAfter, cpuAfter, memory] = await Promise.all([
    probe.dynamodbRequests(),
    probe.cpuMicros(),
    probe.memory(false),
  ]);
  latencies.sort(ascending);
  return {
    rps: Math.round(latencies.length / ((lastAnswer - started) / 1000)),
    p50: round(percentile(latencies, 50)),
    p99: round(percentile(latencies, 99)),
    cpu: round((cpuAfter - cpuBefore) / 1000 / Math.max(1, latencies.length), 3),
    rssMB: memory.rss / 2 ** 20,
    requests: latencies.length,
    statuses,
    errors: result.errors + result.timeouts,
    dynamodb: total(Object.values(requestsBetween(requestsBefore, requestsAfter))),
  };
};
type Turn = Awaited<ReturnType<typeof turn>>;
const FIGURES = ['rps', 'p50', 'p99', 'cpu'] as const;
type Figure = (typeof FIGURES)[number];

const total = (values: number[]) => values.reduce((a, b) => a + b, 0);

const figures = (side: Side, turns: Turn[]) => {
  const requests = total(turns.map((t) => t.requests));
  const statuses: Record<string, number> = {};
  for (const [status, n] of turns.flatMap((t) => Object.entries(t.statuses)))
    statuses[status] = (statuses[status] ?? 0) + n;
  const unexpected = Object.entries(statuses).filter(([status]) => Number(status) !== side.expectedStatus);
  const over = (figure: Figure) => spread(turns.map((t) => t[figure]));
  return {
    name: side.name,
    ...{ rps: over('rps'), p50: over('p50'), p99: over('p99') },
    /** CPU time of the server process per request, its embedded DynamoDB included. */
    cpuMsPerRequest: over('cpu'),
    /** The process's largest RSS at the end of a turn. */
    rssMB: Math.round(Math.max(...turns.map((t) => t.rssMB))),
    /** Every DynamoDB request on the wire per API request, whatever the operation, over all rounds. */
    dynamodbPerRequest: round(total(turns.map((t) => t.dynamodb)) / requests, 3),
    requests,
    /** Every answer by status, over all rounds. */
    statuses,
    /** Answers other than the expected status, connection errors and timeouts. */
    failed: total(unexpected.map(([, n]) => n)) + total(turns.map((t) => t.errors)),
  };
};

/** With `alsoAgainst` (a side's index), each other side but the first ÷ that side too (alsoRatios). */
export const compare = async (name: string, sides: Side[], options: LoadOptions, alsoAgainst?: number) => {
  // Each side's warm-up rate sets how many requests make its turn of about roundSeconds.
  const amounts: number[] = [];
  for (const side of sides) {
    const { rps } = await turn(side, options.connections, { seconds: options.warmupSeconds });
    amounts.push(Math.max(1, Math.round((rps * options.roundSeconds) / options.connections)) * options.connections);
  }
  const amountOf = (s: number) => ({ amount: amounts[s]! });
  const turns = await inTurns(sides.length, options.rounds, (s) => turn(sides[s]!, options.connections, amountOf(s)));
  const ratiosOf = (measured: Turn[], reference = 0) =>
    Object.fromEntries(FIGURES.map((f) => [f, ratios(measured, turns[reference]!, (t) => t[f])])) as Record<
      Figure,
      Spread
    >;
  const also =
    alsoAgainst === undefined
      ? []
      : sides.map((side, s) => [side, s] as const).filter(([, s]) => s !== 0 && s !== alsoAgainst);
  return {
    name,
    connections: options.connections,
    /** The reference first. */
    sides: sides.map((side, s) => figures(side, turns[s]!)),
    /** Each other side ÷ the reference, round by round, by the side's name. */
    ratios: Object.fromEntries(sides.slice(1).map((side, s) => [side.name, ratiosOf(turns[s + 1]!)])),
    /** Each other side but the first ÷ `alsoAgainst`'s, by the side's name; that side is `alsoReference`. */
    alsoRatios: Object.fromEntries(also.map(([side, s]) => [side.name, ratiosOf(turns[s]!, alsoAgainst)])),
    alsoReference: alsoAgainst === undefined ? undefined : sides[alsoAgainst]!.name,
  };
};
export type Comparison = Awaited<ReturnType<typeof compare>>;
