// Side by side: two servers take turns under the same load, in alternating order round
// after round, so that drift on a noisy machine (other processes, LevelDB compactions,
// JIT) lands on both. autocannon drives each turn and times every answer; each server's
// probe gives its DynamoDB requests (on the wire) and CPU time over the turn. Figures are
// the median over the rounds with their range; a ratio is the median of the rounds' ratios.
import autocannon from 'autocannon';
import type { RequestSpec } from '../../tools/harness/http-client.ts';
import { type Probe, requestsBetween } from '../../tools/harness/probe-client.ts';
import { median, percentile, ratio, round } from './stats.ts';

export interface Side {
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

/** A figure over the rounds. */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

interface Turn {
  rps: number;
  p50: number;
  p99: number;
  cpuMs: number;
  requests: number;
  failed: number;
  dynamodb: Record<string, number>;
}

export interface SideFigures {
  rps: Spread;
  p50: Spread;
  p99: Spread;
  /** CPU time of the server process per request, its embedded DynamoDB included. */
  cpuMsPerRequest: Spread;
  /** DynamoDB requests per API request, by operation, over all rounds. */
  dynamodbPerRequest: Record<string, number>;
  requests: number;
  failed: number;
}

export interface Comparison {
  name: string;
  connections: number;
  reference: SideFigures;
  measured: SideFigures;
  /** measured ÷ reference, round by round. */
  ratio: Record<'rps' | 'p50' | 'p99' | 'cpu', Spread>;
}

const spread = (values: number[], digits = 2): Spread => ({
  median: round(median(values), digits),
  min: round(Math.min(...values), digits),
  max: round(Math.max(...values), digits),
});

/**
 * One side's turn: for `seconds` (the warm-up), or for `amount` requests, each answered before
 * the turn ends, so that the DynamoDB requests on the wire are those of the requests counted.
 */
const turn = async (side: Side, connections: number, size: { seconds: number } | { amount: number }): Promise<Turn> => {
  const { baseUrl, probe } = side.server;
  const [requestsBefore, cpuBefore] = await Promise.all([probe.dynamodbRequests(), probe.cpuMicros()]);
  const prefix = new URL(baseUrl).pathname;
  const latencies: number[] = [];
  let failed = 0;
  let i = 0;
  const started = performance.now();
  let lastAnswer = started;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: baseUrl,
        connections,
        sampleInt: 50, // it notices that every request was answered at its next sample only
        ...('amount' in size ? { amount: size.amount } : { duration: size.seconds }),
        requests: [
          {
            setupRequest: (request) => {
              const spec = side.request(i++);
              const method = spec.method as autocannon.Request['method'];
              return { ...request, method, path: prefix + spec.path, headers: spec.headers ?? {}, body: spec.body };
            },
          },
        ],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    // Each answer's own time, from autocannon's event: its histogram keeps whole milliseconds, too coarse here.
    (instance as unknown as NodeJS.EventEmitter).on('response', (_client, status: number, _bytes, ms: number) => {
      latencies.push(ms);
      lastAnswer = performance.now();
      if (status !== side.expectedStatus) failed++;
    });
  });
  const [requestsAfter, cpuAfter] = await Promise.all([probe.dynamodbRequests(), probe.cpuMicros()]);
  latencies.sort((a, b) => a - b);
  const n = Math.max(1, latencies.length);
  return {
    rps: latencies.length / ((lastAnswer - started) / 1000),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    cpuMs: (cpuAfter - cpuBefore) / 1000 / n,
    requests: latencies.length,
    failed: failed + result.errors + result.timeouts,
    dynamodb: requestsBetween(requestsBefore, requestsAfter),
  };
};

const figures = (turns: Turn[]): SideFigures => {
  const requests = turns.reduce((sum, t) => sum + t.requests, 0);
  const dynamodb: Record<string, number> = {};
  for (const t of turns) for (const [op, n] of Object.entries(t.dynamodb)) dynamodb[op] = (dynamodb[op] ?? 0) + n;
  return {
    rps: spread(
      turns.map((t) => t.rps),
      0,
    ),
    p50: spread(turns.map((t) => t.p50)),
    p99: spread(turns.map((t) => t.p99)),
    cpuMsPerRequest: spread(
      turns.map((t) => t.cpuMs),
      3,
    ),
    dynamodbPerRequest: Object.fromEntries(Object.entries(dynamodb).map(([op, n]) => [op, round(n / requests, 3)])),
    requests,
    failed: turns.reduce((sum, t) => sum + t.failed, 0),
  };
};

export const compare = async (name: string, reference: Side, measured: Side, options: LoadOptions) => {
  const sides = [reference, measured] as const;
  // Each side's warm-up rate sets how many requests make its turn of about roundSeconds.
  const amounts: number[] = [];
  for (const side of sides) {
    const { rps } = await turn(side, options.connections, { seconds: options.warmupSeconds });
    amounts.push(Math.max(1, Math.round((rps * options.roundSeconds) / options.connections)) * options.connections);
  }
  const turns: [Turn[], Turn[]] = [[], []];
  for (let r = 0; r < options.rounds; r++) {
    for (const s of r % 2 === 0 ? [0, 1] : [1, 0])
      turns[s]!.push(await turn(sides[s]!, options.connections, { amount: amounts[s]! }));
  }
  const ratios = (figure: (t: Turn) => number) =>
    spread(turns[1].map((t, r) => ratio(figure(t), figure(turns[0][r]!))));
  return {
    name,
    connections: options.connections,
    reference: figures(turns[0]),
    measured: figures(turns[1]),
    ratio: {
      rps: ratios((t) => t.rps),
      p50: ratios((t) => t.p50),
      p99: ratios((t) => t.p99),
      cpu: ratios((t) => t.cpuMs),
    },
  } satisfies Comparison;
};

/** Every DynamoDB request per API request, whatever the operation. */
export const dynamodbPerRequest = (side: SideFigures): number =>
  round(
    Object.values(side.dynamodbPerRequest).reduce((sum, n) => sum + n, 0),
    3,
  );
