// bench/results.json and the printed tables, every figure set against its target
// (issue 9's targets for the server and the handlers; the listing's from before).
import type { AuthorizerFigures } from './authorizer.ts';
import type { CompareOptions, Comparison, SideFigures } from './compare.ts';
import type { HandlerFigures } from './handler-bench.ts';
import { describeMachine, type MachineInfo } from './machine.ts';
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
  authorizerRequestsPerMiss: 1,
  filteredP50RatioLargeToSmall: 1.2,
} as const;

export interface ServerPart {
  comparisons: Comparison[];
  single: Comparison;
  /** Lines and bytes the server prints per request, at its default level. */
  output: { lines: number; bytes: number };
  authorizer: AuthorizerFigures;
}

export interface ReportInput {
  machine: MachineInfo;
  options: CompareOptions;
  scalingOptions: CompareOptions;
  server?: ServerPart | undefined;
  handlers?: HandlerFigures[] | undefined;
  scaling?: { seeding: Record<'small' | 'large', { animals: number; ms: number }>; scaling: Comparison[] } | undefined;
}

/** Every DynamoDB request per API request, whatever the table. */
const requestsPerRequest = (side: SideFigures): number =>
  round(
    Object.values(side.dynamodbRequestsPerRequest).reduce((sum, n) => sum + n, 0),
    3,
  );

const buildResults = (input: ReportInput) => {
  const targets: Array<{ figure: string; target: string; measured: number; met: boolean }> = [];
  const check = (figure: string, target: string, measured: number, met: boolean) =>
    targets.push({ figure, target, measured, met });
  const { server, handlers, scaling } = input;

  if (server) {
    for (const c of server.comparisons) {
      const operation = c.name.split(' ')[0] as keyof typeof TARGETS.dynamodbRequests;
      const limit = TARGETS.dynamodbRequests[operation];
      const measured = requestsPerRequest(c.measured);
      check(
        `${c.name}: DynamoDB requests per API request`,
        operation === 'createPet' ? `≤ ${limit}` : `${limit.toFixed(2)}`,
        measured,
        round(measured, 2) <= limit,
      );
      check(
        `${c.name}: req/s ÷ bare`,
        `≥ ${TARGETS.rpsRatioAtLeast}`,
        c.rpsRatio,
        c.rpsRatio >= TARGETS.rpsRatioAtLeast,
      );
      check(`${c.name}: p99 ÷ bare`, `≤ ${TARGETS.p99RatioAtMost}`, c.p99Ratio, c.p99Ratio <= TARGETS.p99RatioAtMost);
      check(
        `${c.name}: CPU per request ÷ bare`,
        `≤ ${TARGETS.cpuRatioAtMost}`,
        c.cpuRatio,
        c.cpuRatio <= TARGETS.cpuRatioAtMost,
      );
    }
    const delta = round(server.single.measured.p50 - server.single.reference.p50, 2);
    check(
      'getPet, 1 connection: p50 − bare p50 (ms)',
      `≤ +${TARGETS.singleP50DeltaMs}`,
      delta,
      delta <= TARGETS.singleP50DeltaMs,
    );
    check(
      'authorizer: DynamoDB requests per cache miss',
      `≤ ${TARGETS.authorizerRequestsPerMiss}`,
      server.authorizer.keysTableRequestsPerMiss,
      server.authorizer.keysTableRequestsPerMiss <= TARGETS.authorizerRequestsPerMiss,
    );
  }
  // The target is tracing off; with the Tracer on, sampled and unsampled are reported beside it.
  for (const h of (handlers ?? []).filter((figures) => figures.tracing === 'off')) {
    check(
      `${h.function} alone: CPU per invocation ÷ floor`,
      `≤ ${TARGETS.handlerCpuRatioAtMost}`,
      h.cpuRatio,
      h.cpuRatio <= TARGETS.handlerCpuRatioAtMost,
    );
  }
  for (const c of scaling?.scaling.filter((s) => s.name.endsWith('local stage')) ?? []) {
    check(
      `${c.name.replace(': local stage', '')}: p50 at 100,000 ÷ p50 at 1,000`,
      `≤ ${TARGETS.filteredP50RatioLargeToSmall}`,
      c.p50Ratio,
      c.p50Ratio <= TARGETS.filteredP50RatioLargeToSmall,
    );
  }
  const all = [...(server ? [...server.comparisons, server.single] : []), ...(scaling?.scaling ?? [])];
  return {
    measuredAt: new Date().toISOString(),
    machine: input.machine,
    options: { server: input.options, scaling: input.scalingOptions },
    server,
    handlers,
    scaling,
    targets,
    failedRequests:
      all.reduce((sum, c) => sum + c.reference.failed + c.measured.failed, 0) +
      (server?.authorizer.unexpectedStatuses ?? 0),
  };
};
type Results = ReturnType<typeof buildResults>;

/** Prints the tables and returns what goes into bench/results.json. */
export const report = (input: ReportInput): Results => {
  const results = buildResults(input);
  print(input, results);
  return results;
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

const print = (input: ReportInput, results: Results) => {
  const out = (text = '') => process.stdout.write(`${text}\n`);
  const perRound = (ratios: number[]) => ratios.join(' ');
  const { options, server, handlers, scaling } = input;
  out(`\nMachine: ${describeMachine(input.machine)}`);
  if (server) {
    out(
      `\n1. npm start (its defaults) against a bare one-call server, each its own process and embedded DynamoDB: ` +
        `${options.rounds} rounds of ${options.roundMs} ms per side, alternating; ratios are medians over rounds.`,
    );
    out(
      'CPU: the server process, its embedded DynamoDB included. DDB: requests per API request on the wire, key lookups included.',
    );
    out(
      table([
        [
          'route',
          'conns',
          'req/s',
          'p50 ms',
          'p99 ms',
          'CPU ms/req',
          'bare req/s',
          'bare p50',
          'bare p99',
          'bare CPU',
          'req/s ratio',
          'p99 ratio',
          'CPU ratio',
          'DDB/req',
          'bare DDB/req',
          'p99 ratio per round',
        ],
        ...[...server.comparisons, server.single].map((c) => [
          c.name.replace(', 1 connection', ''),
          c === server.single ? 1 : options.concurrency,
          c.measured.requestsPerSecond,
          c.measured.p50,
          c.measured.p99,
          c.measured.cpuMsPerRequest,
          c.reference.requestsPerSecond,
          c.reference.p50,
          c.reference.p99,
          c.reference.cpuMsPerRequest,
          c.rpsRatio,
          c.p99Ratio,
          c.cpuRatio,
          requestsPerRequest(c.measured),
          requestsPerRequest(c.reference),
          perRound(c.p99RatioPerRound),
        ]),
      ]),
    );
    out(
      `Printed per request (sequential getPets, default LOG_LEVEL): ${server.output.lines} lines, ${server.output.bytes} bytes`,
    );
    const { authorizer } = server;
    out(
      `Authorizer (${authorizer.misses} new keys, one request each, then again): key lookups per cache miss ${authorizer.keysTableRequestsPerMiss}, ` +
        `per hit ${authorizer.keysTableRequestsPerHit}, per unknown key ${authorizer.keysTableRequestsPerUnknownKey}; p50 miss ${authorizer.missP50} ms, hit ${authorizer.hitP50} ms`,
    );
  }
  if (handlers) {
    out(
      '\n2. Each handler alone, warm, in its own process, against the floor (a bare handler making the same DynamoDB call);',
    );
    out('   both bundled as deployed, same embedded DynamoDB; per invocation, medians over rounds');
    out(handlersTable(handlers));
  }
  if (scaling) {
    out(
      `\n3. Filtered listing (status, limit 20): 100,000 animals against 1,000, side by side (in-process stages; seeding 100,000 took ${Math.round(scaling.seeding.large.ms)} ms)`,
    );
    out(
      table([
        [
          'listing',
          'p50 1k',
          'p50 100k',
          'p50 ratio',
          'p50 ratio per round',
          'p99 1k',
          'p99 100k',
          'CPU ms/req 1k',
          'CPU 100k',
        ],
        ...scaling.scaling.map((c) => [
          c.name,
          c.reference.p50,
          c.measured.p50,
          c.p50Ratio,
          perRound(c.p50RatioPerRound),
          c.reference.p99,
          c.measured.p99,
          c.reference.cpuMsPerRequest,
          c.measured.cpuMsPerRequest,
        ]),
      ]),
    );
  }
  out('\nTargets:');
  out(
    table([
      ['figure', 'target', 'measured', ''],
      ...results.targets.map((t) => [t.figure, t.target, t.measured, verdict(t.met)]),
    ]),
  );
  if (results.failedRequests > 0)
    out(`\n${results.failedRequests} requests FAILED: the figures above are not to be trusted`);
};
