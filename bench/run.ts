// `npm run bench`: each part side by side in one run, then every figure against its target;
// prints tables and writes bench/results.json (figures: docs/performance.md).
// 1. `npm start`'s server exactly as a user starts it (its defaults, no setting of ours) against
//    a bare server making the same DynamoDB call and nothing else (its create a conditional put,
//    every write synced, as durable as ours), on plain dynalite (the floor the targets are held
//    to), and against the same bare server on our embedded DynamoDB (printed too), each its own
//    process holding 1,000 animals: 16 connections over 8 keys per route, then getPet on one; req/s, p50,
//    p99, CPU per request, the server process's RSS under load, 2 s after it and at rest, every answer's status
//    (any but the route's, a 429 or a 415 say, fails the run), and DynamoDB requests per API
//    request counted on the wire (key lookups included).
// 2. Each Lambda handler alone, warm, tracing off, against the floor (`npm run bench:handlers`
//    measures tracing and staging's settings too).
// 3. The filtered listing (first page, a page from the middle, status=sold) on three `npm start`
//    servers: 1,000 animals, 100,000, and the same 1,000 at PETSTORE_INDEX_SHARDS=4.
// Environment: BENCH_QUICK=1 (a short run that proves it works: few, short rounds, 10,000
// animals for 100,000), BENCH_ROUNDS (3), BENCH_ROUND_SECONDS (8; part 3 at most 3), BENCH_PARTS
// (server,handlers,listing), BENCH_CPU_PROF=dir (a V8 CPU profile of each server there),
// BENCH_NODE_ARGS (Node's flags for each server, space-separated: `--import <module>` say),
// BENCH_BEFORE=dir[,dir…] (other checkouts of this repository, earlier commits' worktrees with
// their node_modules: each one's `npm start` as a further side of part 1, named by its
// directory); HANDLER_PROCESSES, HANDLER_ROUNDS, HANDLER_INVOCATIONS and HANDLER_WARMUP as for
// `npm run bench:handlers`.
import { basename, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LOCAL_IDLE_MEMORY_SECONDS } from '../infra/local/config.ts';
import { type KeyScope, type OperationId, routes } from '../shared/api/routes.ts';
import type { RequestSpec } from '../tools/harness/http-client.ts';
import { disposeServer } from '../tools/harness/local-server.ts';
import { type SampleRequest, sampleHttpRequest, sampleRequests } from '../tools/harness/sample-requests.ts';
import {
  HANDLER_RUN,
  handlersTable,
  handlerTargets,
  measureHandlers,
  variantsOf,
  warmLegend,
} from './support/handler-bench.ts';
import { comparisonTable, failures, rssAtRestTarget, scalingTarget, serverTargets } from './support/report.ts';
import { SEED_FIRST_ID, seedPets } from './support/seed.ts';
import { type BenchServer, startBareServer, startUserServer, warmCompileCache } from './support/servers.ts';
import { type Comparison, compare, type LoadOptions } from './support/side-by-side.ts';
import { machine, printTargets, type Target, writeResults } from './support/stats.ts';

const quick = process.env.BENCH_QUICK === '1';
const SMALL_TABLE = 1_000;
const LARGE_TABLE = quick ? 10_000 : 100_000;
const parts = new Set((process.env.BENCH_PARTS ?? 'server,handlers,listing').split(','));
/** Other checkouts to set beside this one in part 1, each named by its directory. */
const others = (process.env.BENCH_BEFORE?.split(',') ?? []).filter(Boolean).map((dir) => resolve(dir));
const load = {
  connections: 16,
  rounds: Number(process.env.BENCH_ROUNDS ?? (quick ? 2 : 3)),
  roundSeconds: Number(process.env.BENCH_ROUND_SECONDS ?? (quick ? 0.5 : 8)),
  warmupSeconds: quick ? 0.3 : 2,
};
// p50s settle sooner; a longer warm-up, as the servers start cold.
const listingLoad = { ...load, connections: 8, roundSeconds: Math.min(load.roundSeconds, 3), warmupSeconds: 1.5 };

const started = performance.now();
const log = (message: string) =>
  console.error(`[${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${message}`);
if (quick) log('BENCH_QUICK: the figures mean nothing');

/**
 * An operation's requests: its valid sample of the harness's table (tools/harness/sample-requests.ts)
 * with what the bench sets apart for request i (a seeded id, a page size, a filter, a new name per create).
 */
type Requests = { status: number; spec: (i: number) => RequestSpec };
const requests = (operationId: OperationId, overrides: (i: number) => SampleRequest): Requests => {
  const { status, ...valid } = sampleRequests[operationId].valid;
  return { status, spec: (i) => sampleHttpRequest(operationId, { ...valid, ...overrides(i) }) };
};
const list = (query: Record<string, string> = {}) => requests('listPets', () => ({ query: { limit: '20', ...query } }));
const getSeeded = requests('getPet', (i) => ({ pathParameters: { petId: String(SEED_FIRST_ID + (i % SMALL_TABLE)) } }));
/** Part 1's requests of each operation: its valid sample, with what the bench sets apart where it must. */
const BENCH_REQUESTS: Partial<Record<OperationId, Requests>> = {
  listPets: list(),
  getPet: getSeeded,
  createPet: requests('createPet', (i) => ({ body: { name: `Bench ${i}`, categoryId: (i % 50) + 1 } })),
};
/** Every operation of `scope` with its part-1 requests, in the route table's order. */
const operationsOf = (scope: KeyScope, load: LoadOptions): [string, Requests, LoadOptions][] =>
  routes
    .filter((r) => r.scope === scope)
    .map((r) => [r.operationId, BENCH_REQUESTS[r.operationId] ?? requests(r.operationId, () => ({})), load]);
/** Request i with the server's keys[i % keys.length]: several keys, as many clients, each with its own limit. */
const withKey = (server: BenchServer, spec: RequestSpec, i: number): RequestSpec =>
  server.keys.length
    ? { ...spec, headers: { Authorization: `Bearer ${server.keys[i % server.keys.length]}`, ...spec.headers } }
    : spec;

/** A side: its name, its server, and the animals it holds (1,000 by default) at its index shards (1). */
type Side = [name: string, start: () => Promise<BenchServer>, animals?: number, shards?: number];
/** A comparison's name, its requests (or those on a side's server holding `animals`), and its load. */
type Measured = [string, Requests | ((server: BenchServer, animals: number) => Promise<Requests>), LoadOptions];
/** A part's figures: printed, set against their targets, written to bench/results.json. */
type Part = { text: string; targets: Target[]; failures?: string[]; figures: unknown };

/** The second side's RSS after the load: 2 s after, and at rest (idle-memory.ts has given back what the load grew). */
type MemoryAfter = { rssAfterMB: number; rssAtRestMB: number };
type Targets = (comparisons: Comparison[], memory?: MemoryAfter) => Target[];

const memoryAfter = async (server: BenchServer): Promise<MemoryAfter> => {
  const rssMB = async () => Math.round((await server.probe.memory(false)).rss / 2 ** 20);
  await sleep(2000); // no forced GC: what the server holds once idle for a moment
  const rssAfterMB = await rssMB();
  await sleep(LOCAL_IDLE_MEMORY_SECONDS * 1000); // its default, as `npm start` runs it
  return { rssAfterMB, rssAtRestMB: await rssMB() };
};

/**
 * A side-by-side part: starts and seeds the sides' servers, compares them on each of `measured`
 * (`targets` sets the comparisons against theirs), then, with `memory`, reads the second side's
 * RSS after the load; stops them.
 */
const sideBySide = async (
  sides: Side[],
  measured: Measured[],
  targets: Targets = () => [],
  { memory = false, alsoAgainst = undefined as number | undefined } = {},
): Promise<Part> => {
  const names = sides.map(([name]) => name);
  const animals = sides.map(([, , count = SMALL_TABLE]) => count);
  const servers = await Promise.all(sides.map(([, start]) => start()));
  try {
    await Promise.all(
      servers.map(async (server, i) => {
        const seconds = (await seedPets(server.dynamodbEndpoint, animals[i]!, sides[i]![3])) / 1000;
        log(`${names[i]}: ${animals[i]} animals seeded in ${Math.round(seconds)} s`);
      }),
    );
    const comparisons: Comparison[] = [];
    for (const [name, request, options] of measured) {
      log(`measuring ${name}, ${options.connections} connections: ${names.join(', ')}`);
      const compared = servers.map(async (server, i) => {
        const { status, spec } = typeof request === 'function' ? await request(server, animals[i]!) : request;
        return { name: names[i]!, server, request: (n: number) => withKey(server, spec(n), n), expectedStatus: status };
      });
      comparisons.push(await compare(name, await Promise.all(compared), options, alsoAgainst));
    }
    const after = memory ? await memoryAfter(servers[1]!) : undefined;
    const memoryLine =
      after &&
      `\nRSS of the ${names[1]} server's process after the load: ${after.rssAfterMB} MB 2 s after, ` +
        `${after.rssAtRestMB} MB at rest (${LOCAL_IDLE_MEMORY_SECONDS + 2} s after)`;
    return {
      text: `${comparisonTable(comparisons)}${memoryLine ?? ''}`,
      targets: targets(comparisons, after),
      failures: failures(comparisons),
      figures: { comparisons, ...after },
    };
  } finally {
    await Promise.all(servers.map(disposeServer));
  }
};

/** A cursor to the page that starts about halfway through the available animals. */
const middleCursor = async (server: BenchServer, animals: number): Promise<string> => {
  let url = server.baseUrl + sampleHttpRequest('listPets', { query: { status: 'available', limit: '100' } }).path;
  for (let page = 0; page < Math.floor(animals / 3 / 2 / 100); page++) {
    const response = await fetch(url, { headers: { Authorization: `Bearer ${server.keys[0]}` } });
    await response.arrayBuffer();
    url = new URL(/<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')![1]!, server.baseUrl).href;
  }
  return new URL(url).searchParams.get('cursor')!;
};

const server = async () => {
  for (const root of [undefined, ...others]) await warmCompileCache(root);
  return sideBySide(
    [
      ['bare', () => startBareServer({ plain: true })],
      ['npm start', () => startUserServer({}, undefined, 8)],
      ['bare (ours)', () => startBareServer()],
      ...others.map((dir): Side => [basename(dir), () => startUserServer({}, dir, 8)]),
    ],
    [
      ...operationsOf('read', load),
      ['listPets status=sold', list({ status: 'sold' }), load],
      ...operationsOf('write', load), // after the reads: creates grow the table
      ['getPet', getSeeded, { ...load, connections: 1 }],
    ],
    (comparisons, memory) => [...comparisons.flatMap(serverTargets), rssAtRestTarget(memory!.rssAtRestMB)],
    { memory: true, alsoAgainst: 2 },
  );
};
const handlerRun = {
  ...HANDLER_RUN,
  ...(quick && { processes: 2, rounds: 2, invocationsPerRound: 50, warmupInvocations: 50 }),
};
const handlers = async (): Promise<Part> => {
  const figures = await measureHandlers(variantsOf(handlerRun), { warm: handlerRun }, log);
  return { text: `${handlersTable(figures)}\n${warmLegend(handlerRun)}`, targets: handlerTargets(figures), figures };
};
const middle = async (server: BenchServer, animals: number) =>
  list({ status: 'available', cursor: await middleCursor(server, animals) });
/** Each server seeded with the status index key the service writes at its shards. */
const listing = () =>
  sideBySide(
    [
      ['small', () => startUserServer(), SMALL_TABLE],
      ['large', () => startUserServer(), LARGE_TABLE],
      ['shards=4', () => startUserServer({ PETSTORE_INDEX_SHARDS: '4' }), SMALL_TABLE, 4],
    ],
    [
      ['listPets status, first page', list({ status: 'available' }), listingLoad],
      ['listPets status, middle page', middle, listingLoad],
      ['listPets status=sold', list({ status: 'sold' }), listingLoad],
    ],
    (comparisons) => comparisons.slice(0, 2).map(scalingTarget),
  );
/** The parts in the order they run, each with its title. */
const PARTS: Array<[string, string, () => Promise<Part>]> = [
  ['server', '1. npm start (its defaults) against the bare one-call server; DynamoDB/req: on the wire', server],
  ['handlers', '2. Each handler alone, warm, against the floor; per invocation, medians over rounds', handlers],
  [
    'listing',
    `3. Filtered listing: ${LARGE_TABLE} animals, and ${SMALL_TABLE} at 4 shards, against ${SMALL_TABLE}`,
    listing,
  ],
];

const measured: Array<[string, string, Part]> = [];
for (const [name, title, run] of PARTS) if (parts.has(name)) measured.push([name, title, await run()]);
console.log(`\nMachine: ${machine.description}`);
console.log(
  `Each figure: median over ${load.rounds} rounds of about ${load.roundSeconds} s per side ` +
    `(part 3: ${listingLoad.roundSeconds} s, ${listingLoad.connections} connections), in turns (range).`,
);
for (const [, title, { text }] of measured) console.log(`\n${title}\n${text}`);
const targets = printTargets(measured.flatMap(([, , part]) => part.targets));
const failed = measured.flatMap(([, , part]) => part.failures ?? []);
for (const failure of failed) console.log(`FAILED: ${failure}`);
if (failed.length) console.log('\nThe figures above are not to be trusted: requests failed.');
const figures = Object.fromEntries(measured.map(([name, , part]) => [name, part.figures]));
writeResults('results.json', {
  quick,
  animals: [SMALL_TABLE, LARGE_TABLE],
  load,
  listingLoad,
  ...figures,
  targets,
  passed: failed.length === 0,
});
log(`done in ${Math.round((performance.now() - started) / 1000)} s`);
if (failed.length) process.exitCode = 1;
