// What bench/results.json holds, and the printed tables: every figure set against its target (issue 30's).
import { type HandlerFigures, handlersTable, handlerTargets } from './handler-bench.ts';
import type { Comparison, LoadOptions } from './side-by-side.ts';
import { atLeast, atMost, counts, machine, printTargets, round, type Target, table } from './stats.ts';

const T = {
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
  filteredP50RatioLargeToSmall: 1.2,
} as const;

export interface ReportInput {
  quick: boolean;
  load: LoadOptions;
  listingLoad: LoadOptions;
  server?: { comparisons: Comparison[]; rssAfterMB: number } | undefined;
  handlers?: HandlerFigures[] | undefined;
  scaling?: { animals: number[]; comparisons: Comparison[] } | undefined;
  shards?: Comparison[] | undefined;
}

/** Part 1's targets are `npm start`'s (the second side), against the bare server's (the first). */
const serverTargets = (c: Comparison): Target[] => {
  const name = `${c.name}, ${c.connections} conn.`;
  const [bare, user] = c.sides as [Comparison['sides'][0], Comparison['sides'][0]];
  const ratio = c.ratios[user.name]!;
  if (c.connections === 1)
    return [atMost(`${name}: p50 − bare p50 (ms)`, round(user.p50.median - bare.p50.median), T.singleP50DeltaMs)];
  const operation = c.name.split(' ')[0] as keyof typeof T.dynamodbRequests;
  const create = operation === 'createPet';
  // DynamoDB requests to two digits, as the target is given: one id block of 100 per container is 1.01 over a long run.
  const dynamodb = round(user.dynamodbPerRequest);
  return [
    atMost(`${name}: DynamoDB requests per API request`, dynamodb, T.dynamodbRequests[operation]),
    atLeast(`${name}: req/s ÷ bare`, ratio.rps.median, create ? T.createRpsRatioAtLeast : T.readRpsRatioAtLeast),
    atMost(`${name}: p99 ÷ bare`, ratio.p99.median, T.p99RatioAtMost),
    ...(create ? [] : [atMost(`${name}: CPU/request ÷ bare`, ratio.cpu.median, T.readCpuRatioAtMost)]),
    atMost(`${name}: RSS of npm start's process, under load (MB)`, user.rssMB, T.rssMB),
  ];
};

const targets = ({ server, handlers, scaling }: ReportInput): Target[] => [
  ...(server?.comparisons ?? []).flatMap(serverTargets),
  ...(server ? [atMost("RSS of npm start's process after the load (MB)", server.rssAfterMB, T.rssMB)] : []),
  ...handlerTargets(handlers ?? []),
  ...(scaling?.comparisons ?? []).map((c) =>
    atMost(`${c.name}: p50, large ÷ small table`, c.ratios.large!.p50.median, T.filteredP50RatioLargeToSmall),
  ),
];

/** Per comparison a row per side, then each other side ÷ the first. */
const comparisonTable = (comparisons: Comparison[]) =>
  table([
    '|conn.||req/s|p50 ms|p99 ms|CPU ms/req|RSS MB|DynamoDB/req|answers'.split('|'),
    ...comparisons.flatMap((c) => [
      ...c.sides.map((side, i) => [
        ...(i === 0 ? [c.name, c.connections] : ['', '']),
        ...[side.name, side.rps, side.p50, side.p99, side.cpuMsPerRequest],
        ...[side.rssMB, side.dynamodbPerRequest, counts(side.statuses)],
      ]),
      ...Object.entries(c.ratios).map(([name, r]) => [
        ...['', '', `${name} ÷ ${c.sides[0]!.name}`, r.rps, r.p50, r.p99, r.cpu],
        ...['', '', ''],
      ]),
    ]),
  ]);

/** Prints the tables and the targets; returns what goes into bench/results.json. */
export const report = (input: ReportInput) => {
  const { load, listingLoad, server, handlers, scaling, shards } = input;
  console.log(`\nMachine: ${machine.description}`);
  console.log(
    `Each figure: median over ${load.rounds} rounds of about ${load.roundSeconds} s per side ` +
      `(parts 3 and 4: ${listingLoad.roundSeconds} s, ${listingLoad.connections} connections), in turns (range).`,
  );
  const parts: Array<[string, string | undefined]> = [
    [
      '1. npm start (its defaults) against the bare one-call server; DynamoDB/req: on the wire',
      server && comparisonTable(server.comparisons),
    ],
    [
      '2. Each handler alone, warm, against the floor; per invocation, medians over rounds',
      handlers && handlersTable(handlers),
    ],
    [
      `3. Filtered listing: ${scaling?.animals[1]} animals (large) against ${scaling?.animals[0]} (small)`,
      scaling && comparisonTable(scaling.comparisons),
    ],
    ['4. Filtered listing, 1,000 animals: PETSTORE_INDEX_SHARDS=4 against 1', shards && comparisonTable(shards)],
  ];
  for (const [title, text] of parts) if (text) console.log(`\n${title}\n${text}`);
  if (server) console.log(`RSS of npm start's server process 2 s after the load: ${server.rssAfterMB} MB`);
  const checks = printTargets(targets(input));
  // Any answer but the route's own fails the run: a 429 or a 415 is a refusal measured, not the route.
  const comparisons = [...(server?.comparisons ?? []), ...(scaling?.comparisons ?? []), ...(shards ?? [])];
  const failures = comparisons.flatMap((c) =>
    c.sides
      .filter((side) => side.failed)
      .map((side) => `${c.name}, ${side.name}: ${side.failed} failed requests (answers: ${counts(side.statuses)})`),
  );
  for (const failure of failures) console.log(`FAILED: ${failure}`);
  if (failures.length) console.log('\nThe figures above are not to be trusted: requests failed.');
  return { ...input, targets: checks, passed: failures.length === 0 };
};
