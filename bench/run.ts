// `npm run bench`: each part side by side in one run, then every figure against its target.
// Prints tables and writes bench/results.json. Figures: docs/performance.md.
// 1. `npm start`'s server, exactly as a user starts it (its defaults, no setting of ours),
//    against a bare server that makes the same DynamoDB call and nothing else (its create a
//    conditional put, every write synced, as durable as ours), each its own process on its
//    own embedded DynamoDB holding 1,000 animals: 16 connections over 8 keys per route, then
//    getPet on one; req/s, p50, p99, CPU per request, the server process's RSS under load and
//    after, every answer's status (a 429 or 415 fails the run), and DynamoDB requests per API
//    request counted on the wire (key lookups included).
// 2. Each Lambda handler alone, warm, tracing off, against the floor (`npm run bench:handlers`
//    measures tracing and staging's settings too).
// 3. The filtered listing, first page and a page from the middle, over 1,000 and 100,000
//    animals: two `npm start` servers side by side.
// 4. The filtered listing with PETSTORE_INDEX_SHARDS=4 beside 1: two `npm start` servers
//    holding the same 1,000 animals, created through the API.
// Environment: BENCH_QUICK=1 (a short run that proves it works: few, short rounds, 10,000
// animals for 100,000), BENCH_ROUNDS (3), BENCH_ROUND_SECONDS (8; parts 3 and 4 at most 3),
// BENCH_PARTS (server,handlers,scaling,shards), BENCH_CPU_PROF=dir (a V8 CPU profile of each
// server there), BENCH_BEFORE=dir[,dir…] (other checkouts of this repository, earlier commits'
// worktrees with their node_modules: each one's `npm start` as a further side of part 1, named
// by its directory); HANDLER_* as for `npm run bench:handlers`.
import { writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { OperationId } from '../shared/api/routes.ts';
import { httpClient, inParallel, type RequestSpec } from '../tools/harness/http-client.ts';
import { type SampleRequest, sampleHttpRequest, sampleRequests } from '../tools/harness/sample-requests.ts';
import { measureHandlers } from './support/handler-bench.ts';
import { report } from './support/report.ts';
import { SEED_FIRST_ID, STATUSES, seedPets } from './support/seed.ts';
import { type BenchServer, startBareServer, startUserServer, type UserServer } from './support/servers.ts';
import { type Comparison, compare, type LoadOptions, type Side } from './support/side-by-side.ts';
import { machine } from './support/stats.ts';

const quick = process.env.BENCH_QUICK === '1';
const SMALL_TABLE = 1_000;
const LARGE_TABLE = quick ? 10_000 : 100_000;
const KEYS = 8;
const parts = new Set((process.env.BENCH_PARTS ?? 'server,handlers,scaling,shards').split(','));
/** Other checkouts to set beside this one in part 1, each named by its directory. */
const others = (process.env.BENCH_BEFORE?.split(',') ?? []).filter(Boolean).map((dir) => resolve(dir));
const load = {
  connections: 16,
  rounds: Number(process.env.BENCH_ROUNDS ?? (quick ? 2 : 3)),
  roundSeconds: Number(process.env.BENCH_ROUND_SECONDS ?? (quick ? 0.5 : 8)),
  warmupSeconds: quick ? 0.3 : 2,
};
// p50s settle sooner; a longer warm-up, as both servers start cold.
const listingLoad = { ...load, connections: 8, roundSeconds: Math.min(load.roundSeconds, 3), warmupSeconds: 1.5 };

const started = performance.now();
const log = (message: string) =>
  console.error(`[${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${message}`);
log(`machine: ${machine.description}${quick ? '; BENCH_QUICK: the figures mean nothing' : ''}`);

// Each route's request is its valid sample of the harness's table (tools/harness/sample-requests.ts),
// with what the bench sets apart: a seeded id, a page size, a status filter, a new name per create.
type Requests = (i: number) => RequestSpec;
const sample = (operationId: OperationId, overrides: SampleRequest) =>
  sampleHttpRequest(operationId, { ...sampleRequests[operationId].valid, ...overrides });
const get = (query: Record<string, string> = {}): Requests => {
  const spec = sample('listPets', { query: { limit: '20', ...query } });
  return () => spec;
};
const create = (i: number, status = 'available') =>
  sample('createPet', { body: { name: `Bench ${i}`, categoryId: (i % 50) + 1, status } });
const getSeeded = (i: number) =>
  sample('getPet', { pathParameters: { petId: String(SEED_FIRST_ID + (i % SMALL_TABLE)) } });
/** A server's side; request i carries its keys[i % keys.length] (the bare server takes none). */
const side = (name: string, server: BenchServer & { keys?: string[] }, request: Requests): Side => ({
  name,
  server,
  request: (i) => {
    const spec = request(i);
    const keys = server.keys ?? [];
    return keys.length
      ? { ...spec, headers: { Authorization: `Bearer ${keys[i % keys.length]}`, ...spec.headers } }
      : spec;
  },
  expectedStatus: request(0).method === 'POST' ? 201 : 200,
});

/** Starts `servers`, `fill`s each, then compares them on each of `requests` under `options`; stops them. */
const measure = async (
  servers: Array<Promise<BenchServer & { keys?: string[] }>>,
  names: string[],
  fill: (server: UserServer, side: number) => Promise<unknown>,
  requests: Array<[string, (server: UserServer, side: number) => Promise<Requests>, LoadOptions]>,
) => {
  const started = await Promise.all(servers);
  try {
    await Promise.all(started.map((server, i) => fill(server as UserServer, i)));
    const comparisons: Comparison[] = [];
    for (const [name, request, options] of requests) {
      log(`measuring ${name}, ${options.connections} connections: ${names.join(', ')}`);
      const sides = await Promise.all(
        started.map(async (s, i) => side(names[i]!, s, await request(s as UserServer, i))),
      );
      comparisons.push(await compare(name, sides, options));
    }
    // After the load: what the server holds once idle for a moment, without a forced GC.
    await new Promise((done) => setTimeout(done, 2000));
    return { comparisons, rssAfterMB: Math.round((await started[1]!.probe.memory(false)).rss / 2 ** 20) };
  } finally {
    await Promise.all(started.map((s) => s.stop()));
  }
};

const routes: Array<[string, Requests, LoadOptions]> = [
  ['getPet', getSeeded, load],
  ['listPets', get(), load],
  ['listPets status=sold', get({ status: 'sold' }), load],
  ['createPet', create, load], // after the reads: creates grow the table
  ['getPet', getSeeded, { ...load, connections: 1 }],
];
/** Several keys, as many clients: each key has its own limit (PETSTORE_KEY_RATE, 1,000/s by default). */
const measureServer = () =>
  measure(
    [startBareServer(), startUserServer({}, undefined, KEYS), ...others.map((dir) => startUserServer({}, dir, KEYS))],
    ['bare', 'npm start', ...others.map((dir) => basename(dir))],
    (server) => seedPets(server.dynamodbEndpoint, SMALL_TABLE),
    routes.map(([name, request, options]) => [name, async () => request, options]),
  );

/** A cursor to the page that starts about halfway through the available animals. */
const middleCursor = async (server: UserServer, animals: number): Promise<string> => {
  let url = `${server.baseUrl}/pets?status=available&limit=100`;
  for (let page = 0; page < Math.floor(animals / 3 / 2 / 100); page++) {
    const response = await fetch(url, { headers: { Authorization: `Bearer ${server.key}` } });
    await response.arrayBuffer();
    url = new URL(/<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')![1]!, server.baseUrl).href;
  }
  return new URL(url).searchParams.get('cursor')!;
};

const measureScaling = async () => {
  const animals = [SMALL_TABLE, LARGE_TABLE];
  let seedingMs = 0;
  const { comparisons } = await measure(
    [startUserServer(), startUserServer()],
    ['small', 'large'],
    async (server, i) => {
      const ms = await seedPets(server.dynamodbEndpoint, animals[i]!);
      if (i) seedingMs = ms;
    },
    (['first', 'middle'] as const).map((page) => [
      `listPets status, ${page} page`,
      async (server, i) =>
        get({ status: 'available', ...(page === 'middle' && { cursor: await middleCursor(server, animals[i]!) }) }),
      listingLoad,
    ]),
  );
  return { animals, seedingMs: Math.round(seedingMs), comparisons };
};

/** 1,000 animals created through the API: the index attributes are the server's own, whatever its shards. */
const createThroughApi = async (server: UserServer) => {
  const client = httpClient(server.baseUrl, 8);
  try {
    await inParallel(SMALL_TABLE, 8, async (i) => {
      const answer = await client.send(side('', server, (n) => create(n, STATUSES[n % 3]!)).request(i));
      if (answer.status !== 201) throw new Error(`seeding through the API: ${answer.status} ${answer.body}`);
    });
  } finally {
    client.close();
  }
};

const measureShards = async () =>
  (
    await measure(
      [startUserServer(), startUserServer({ PETSTORE_INDEX_SHARDS: '4' })],
      ['shards=1', 'shards=4'],
      createThroughApi,
      ['sold', 'available'].map((status) => [
        `listPets status=${status}, shards`,
        async () => get({ status }),
        listingLoad,
      ]),
    )
  ).comparisons;

const server = parts.has('server') ? await measureServer() : undefined;
const handlerOptions = quick ? { rounds: 2, invocationsPerRound: 50, warmupInvocations: 50 } : undefined;
const handlers = parts.has('handlers') ? await measureHandlers(handlerOptions, { tracing: ['off'] }, log) : undefined;
const scaling = parts.has('scaling') ? await measureScaling() : undefined;
const shards = parts.has('shards') ? await measureShards() : undefined;
const results = report({ quick, load, listingLoad, server, handlers, scaling, shards });
writeFileSync(new URL('./results.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
log(`done in ${Math.round((performance.now() - started) / 1000)} s; wrote bench/results.json`);
if (!results.passed) process.exitCode = 1;
