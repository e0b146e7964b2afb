// bench/results.json and the printed tables, every figure set against its target.
import type { HandlerFigures } from './handler-bench.ts';
import { describeMachine, type MachineInfo } from './machine.ts';
import {
  type Comparison,
  dynamodbPerRequest,
  type LoadOptions,
  type SideFigures,
  type Spread,
} from './side-by-side.ts';
import { round, table, verdict } from './stats.ts';

const TARGETS = {
  /** DynamoDB requests per API request at `npm start`'s defaults, key lookups included. */
  dynamodbRequests: { getPet: 1, listPets: 1, createPet: 1.01 },
  rpsRatioAtLeast: 0.8,
  p99RatioAtMost: 1.3,
  cpuRatioAtMost: 1.3,
  /** getPet on one connection: p50 over the bare server's, in ms. */
  singleP50DeltaMs: 0.5,
  handlerCpuRatioAtMost: 1.15,
  filteredP50RatioLargeToSmall: 1.2,
} as const;

export interface ReportInput {
  machine: MachineInfo;
  quick: boolean;
  load: LoadOptions;
  scalingLoad: LoadOptions;
  server?: Comparison[] | undefined;
  handlers?: HandlerFigures[] | undefined;
  scaling?: { animals: number[]; seedingMs: number; comparisons: Comparison[] } | undefined;
}

/** `median (min–max)` */
const s = (figure: Spread) =>
  figure.min === figure.max ? `${figure.median}` : `${figure.median} (${figure.min}–${figure.max})`;

const targets = ({ server, handlers, scaling }: ReportInput) => {
  const checks: Array<{ figure: string; target: string; measured: number; met: boolean }> = [];
  const check = (figure: string, target: string, measured: number, met: boolean) =>
    checks.push({ figure, target, measured, met });
  for (const c of server ?? []) {
    const name = `${c.name}, ${c.connections} conn.`;
    if (c.connections === 1) {
      const delta = round(c.measured.p50.median - c.reference.p50.median);
      check(`${name}: p50 − bare p50 (ms)`, `≤ +${TARGETS.singleP50DeltaMs}`, delta, delta <= TARGETS.singleP50DeltaMs);
      continue;
    }
    const limit = TARGETS.dynamodbRequests[c.name.split(' ')[0] as keyof typeof TARGETS.dynamodbRequests];
    const requests = dynamodbPerRequest(c.measured);
    check(`${name}: DynamoDB requests per API request`, `≤ ${limit}`, requests, round(requests) <= limit);
    const { rps, p99, cpu } = c.ratio;
    check(`${name}: req/s ÷ bare`, `≥ ${TARGETS.rpsRatioAtLeast}`, rps.median, rps.median >= TARGETS.rpsRatioAtLeast);
    check(`${name}: p99 ÷ bare`, `≤ ${TARGETS.p99RatioAtMost}`, p99.median, p99.median <= TARGETS.p99RatioAtMost);
    check(
      `${name}: CPU/request ÷ bare`,
      `≤ ${TARGETS.cpuRatioAtMost}`,
      cpu.median,
      cpu.median <= TARGETS.cpuRatioAtMost,
    );
  }
  // The target is tracing off; with tracing on, sampled and unsampled are reported beside it.
  for (const h of (handlers ?? []).filter((f) => f.tracing === 'off')) {
    const limit = TARGETS.handlerCpuRatioAtMost;
    check(`${h.function} alone: CPU per invocation ÷ floor`, `≤ ${limit}`, h.cpuRatio, h.cpuRatio <= limit);
  }
  for (const c of scaling?.comparisons ?? []) {
    const limit = TARGETS.filteredP50RatioLargeToSmall;
    check(`${c.name}: p50, large ÷ small table`, `≤ ${limit}`, c.ratio.p50.median, c.ratio.p50.median <= limit);
  }
  return checks;
};

const handlersTable = (figures: HandlerFigures[]): string =>
  table([
    [
      'function',
      'tracing',
      'CPU ms/inv',
      'floor',
      'CPU ratio',
      'p50 ms',
      'floor',
      'p50 ratio',
      'p99 ms',
      'floor',
      'p99 ratio',
      'CPU ratio per round',
    ],
    ...figures.map((f) => [
      f.function,
      f.tracing,
      f.cpuMs,
      f.floorCpuMs,
      f.cpuRatio,
      f.p50Ms,
      f.floorP50Ms,
      f.p50Ratio,
      f.p99Ms,
      f.floorP99Ms,
      f.p99Ratio,
      f.cpuRatioPerRound.join(' '),
    ]),
  ]);

/** Per comparison three rows: the measured side, the reference side, and measured ÷ reference. */
const comparisonTable = (comparisons: Comparison[], [measured, reference]: [string, string]) =>
  table([
    ['', 'conn.', '', 'req/s', 'p50 ms', 'p99 ms', 'CPU ms/req', 'DynamoDB/req'],
    ...comparisons.flatMap((c) => {
      const row = (side: SideFigures) => [
        s(side.rps),
        s(side.p50),
        s(side.p99),
        s(side.cpuMsPerRequest),
        dynamodbPerRequest(side),
      ];
      return [
        [c.name, c.connections, measured, ...row(c.measured)],
        ['', '', reference, ...row(c.reference)],
        ['', '', 'ratio', s(c.ratio.rps), s(c.ratio.p50), s(c.ratio.p99), s(c.ratio.cpu), ''],
      ];
    }),
  ]);

/** Prints the tables and returns what goes into bench/results.json. */
export const report = (input: ReportInput) => {
  const { load, server, handlers, scaling } = input;
  const checks = targets(input);
  const comparisons = [...(server ?? []), ...(scaling?.comparisons ?? [])];
  const failedRequests = comparisons.reduce((sum, c) => sum + c.reference.failed + c.measured.failed, 0);
  const out = (text = '') => process.stdout.write(`${text}\n`);
  out(`\nMachine: ${describeMachine(input.machine)}`);
  if (server || scaling)
    out(
      `Each figure: median over ${load.rounds} rounds of about ${load.roundSeconds} s per side, alternating (range).`,
    );
  if (server) {
    out('\n1. npm start (its defaults) against the bare one-call server; DDB/req: DynamoDB requests on the wire');
    out(comparisonTable(server, ['npm start', 'bare']));
  }
  if (handlers) {
    out('\n2. Each handler alone, warm, against the floor; per invocation, medians over rounds');
    out(handlersTable(handlers));
  }
  if (scaling) {
    out(`\n3. Filtered listing: ${scaling.animals[1]} animals (measured) against ${scaling.animals[0]} (reference)`);
    out(comparisonTable(scaling.comparisons, ['large', 'small']));
  }
  out('\nTargets:');
  out(
    table([
      ['figure', 'target', 'measured', ''],
      ...checks.map((t) => [t.figure, t.target, t.measured, verdict(t.met)]),
    ]),
  );
  if (failedRequests > 0) out(`\n${failedRequests} requests FAILED: the figures above are not to be trusted`);
  return { measuredAt: new Date().toISOString(), ...input, targets: checks, failedRequests };
};
