// bench/results.json and the printed tables, every figure set against its target (issue 30's).
import { readFileSync } from 'node:fs';
import type { HandlerFigures } from './handler-bench.ts';
import { describeMachine, type MachineInfo } from './machine.ts';
import { type Comparison, dynamodbPerRequest, type LoadOptions, type Spread } from './side-by-side.ts';
import { round, table, verdict } from './stats.ts';

const TARGETS = {
  /** DynamoDB requests per API request at `npm start`'s defaults, key lookups included. */
  dynamodbRequests: { getPet: 1, listPets: 1, createPet: 1.01 },
  readRpsRatioAtLeast: 0.85,
  createRpsRatioAtLeast: 0.8,
  readCpuRatioAtMost: 1.2,
  p99RatioAtMost: 1.3,
  /** getPet on one connection: p50 over the bare server's, in ms. */
  singleP50DeltaMs: 0.1,
  /** The server process's RSS, under the load and after it. */
  rssMB: 200,
  handlerCpuRatioAtMost: 1.15,
  filteredP50RatioLargeToSmall: 1.2,
} as const;
/** Answers that mean the bench measured a refusal, not the route: any of them fails the run. */
const REFUSALS = ['429', '415'];

export interface ReportInput {
  machine: MachineInfo;
  quick: boolean;
  load: LoadOptions;
  listingLoad: LoadOptions;
  server?: { comparisons: Comparison[]; rssAfterMB: number } | undefined;
  handlers?: HandlerFigures[] | undefined;
  scaling?: { animals: number[]; seedingMs: number; comparisons: Comparison[] } | undefined;
  shards?: Comparison[] | undefined;
}

/** `median (min–max)` */
const s = (figure: Spread) =>
  figure.min === figure.max ? `${figure.median}` : `${figure.median} (${figure.min}–${figure.max})`;

const targets = ({ server, handlers, scaling }: ReportInput) => {
  const checks: Array<{ figure: string; target: string; measured: number; met: boolean }> = [];
  const atMost = (figure: string, measured: number, limit: number) =>
    checks.push({ figure, target: `≤ ${limit}`, measured, met: measured <= limit });
  const atLeast = (figure: string, measured: number, limit: number) =>
    checks.push({ figure, target: `≥ ${limit}`, measured, met: measured >= limit });
  for (const c of server?.comparisons ?? []) {
    const name = `${c.name}, ${c.connections} conn.`;
    const [bare, user] = c.sides as [Comparison['sides'][0], Comparison['sides'][0]];
    const ratio = c.ratios[user.name]!;
    if (c.connections === 1) {
      atMost(`${name}: p50 − bare p50 (ms)`, round(user.p50.median - bare.p50.median), TARGETS.singleP50DeltaMs);
      continue;
    }
    const operation = c.name.split(' ')[0] as keyof typeof TARGETS.dynamodbRequests;
    // To two digits, as the target is given: one id block of 100 per container is 1.01 over a long run.
    atMost(
      `${name}: DynamoDB requests per API request`,
      round(dynamodbPerRequest(user)),
      TARGETS.dynamodbRequests[operation],
    );
    const create = operation === 'createPet';
    atLeast(
      `${name}: req/s ÷ bare`,
      ratio.rps.median,
      create ? TARGETS.createRpsRatioAtLeast : TARGETS.readRpsRatioAtLeast,
    );
    atMost(`${name}: p99 ÷ bare`, ratio.p99.median, TARGETS.p99RatioAtMost);
    if (!create) atMost(`${name}: CPU/request ÷ bare`, ratio.cpu.median, TARGETS.readCpuRatioAtMost);
    atMost(`${name}: RSS of npm start's process, under load (MB)`, user.rssMB, TARGETS.rssMB);
  }
  if (server) atMost("RSS of npm start's process after the load (MB)", server.rssAfterMB, TARGETS.rssMB);
  for (const h of handlers ?? [])
    atMost(`${h.function} alone: CPU per invocation ÷ floor`, h.cpuRatio, TARGETS.handlerCpuRatioAtMost);
  for (const c of scaling?.comparisons ?? [])
    atMost(`${c.name}: p50, large ÷ small table`, c.ratios.large!.p50.median, TARGETS.filteredP50RatioLargeToSmall);
  return checks;
};

const handlersTable = (figures: HandlerFigures[]): string =>
  table([
    ['function', 'tracing', 'CPU ms/inv', 'floor', 'CPU ratio', 'p50 ratio', 'p99 ratio', 'CPU ratio per round'],
    ...figures.map((f) => [
      f.function,
      f.tracing,
      f.cpuMs,
      f.floorCpuMs,
      f.cpuRatio,
      f.p50Ratio,
      f.p99Ratio,
      f.cpuRatioPerRound.join(' '),
    ]),
  ]);

const statuses = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([status, n]) => `${status}×${n}`)
    .join(' ');

/** Per comparison a row per side, then each other side ÷ the first. */
const comparisonTable = (comparisons: Comparison[]) =>
  table([
    ['', 'conn.', '', 'req/s', 'p50 ms', 'p99 ms', 'CPU ms/req', 'RSS MB', 'DynamoDB/req', 'answers'],
    ...comparisons.flatMap((c) => [
      ...c.sides.map((side, i) => [
        i === 0 ? c.name : '',
        i === 0 ? c.connections : '',
        side.name,
        s(side.rps),
        s(side.p50),
        s(side.p99),
        s(side.cpuMsPerRequest),
        side.rssMB,
        dynamodbPerRequest(side),
        statuses(side.statuses),
      ]),
      ...Object.entries(c.ratios).map(([name, r]) => [
        '',
        '',
        `${name} ÷ ${c.sides[0]!.name}`,
        s(r.rps),
        s(r.p50),
        s(r.p99),
        s(r.cpu),
        '',
        '',
        '',
      ]),
    ]),
  ]);

/** Whether this checkout's `npm start` reads PETSTORE_INDEX_SHARDS at all (part 4 means nothing if not). */
const knowsShards = () =>
  readFileSync(new URL('../../infra/local/config.ts', import.meta.url), 'utf8').includes('PETSTORE_INDEX_SHARDS');

/** Prints the tables and returns what goes into bench/results.json. */
export const report = (input: ReportInput) => {
  const { load, listingLoad, server, handlers, scaling, shards } = input;
  const checks = targets(input);
  const comparisons = [...(server?.comparisons ?? []), ...(scaling?.comparisons ?? []), ...(shards ?? [])];
  const sides = comparisons.flatMap((c) => c.sides.map((side) => ({ ...side, name: `${c.name}, ${side.name}` })));
  const failed = sides.filter((side) => side.failed > 0);
  const refused = sides.filter((side) => REFUSALS.some((status) => side.statuses[status]));
  const out = (text = '') => process.stdout.write(`${text}\n`);
  out(`\nMachine: ${describeMachine(input.machine)}`);
  out(
    `Each figure: median over ${load.rounds} rounds of about ${load.roundSeconds} s per side ` +
      `(parts 3 and 4: ${listingLoad.roundSeconds} s, ${listingLoad.connections} connections), in turns (range).`,
  );
  if (server) {
    out('\n1. npm start (its defaults) against the bare one-call server; DynamoDB/req: requests on the wire');
    out(comparisonTable(server.comparisons));
    out(`RSS of npm start's server process 2 s after the load: ${server.rssAfterMB} MB`);
  }
  if (handlers) {
    out('\n2. Each handler alone, warm, against the floor; per invocation, medians over rounds');
    out(handlersTable(handlers));
  }
  if (scaling) {
    out(`\n3. Filtered listing: ${scaling.animals[1]} animals (large) against ${scaling.animals[0]} (small)`);
    out(comparisonTable(scaling.comparisons));
  }
  if (shards) {
    out('\n4. Filtered listing, 1,000 animals: PETSTORE_INDEX_SHARDS=4 against 1');
    if (!knowsShards()) out('   (this checkout has no PETSTORE_INDEX_SHARDS: both sides are the same server)');
    out(comparisonTable(shards));
  }
  out('\nTargets:');
  out(
    table([
      ['figure', 'target', 'measured', ''],
      ...checks.map((t) => [t.figure, t.target, t.measured, verdict(t.met)]),
    ]),
  );
  for (const side of failed)
    out(`FAILED: ${side.name}: ${side.failed} failed requests (answers: ${statuses(side.statuses)})`);
  for (const side of refused)
    out(`FAILED: ${side.name} was refused (${statuses(side.statuses)}): not the route's figure`);
  const passed = failed.length === 0 && refused.length === 0;
  if (!passed) out('\nThe figures above are not to be trusted: requests failed.');
  return { measuredAt: new Date().toISOString(), ...input, targets: checks, passed };
};
