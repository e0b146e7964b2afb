// `npm run bench`: three parts, each side by side in one run, then every figure against its
// target. Prints tables and writes bench/results.json. Figures: docs/performance.md.
// 1. `npm start`'s server, exactly as a user starts it (its defaults, no setting of ours),
//    against a bare server that makes the same DynamoDB call and nothing else, each its own
//    process on its own embedded DynamoDB holding 1,000 animals: 16 connections per route,
//    then getPet on one; req/s, p50, p99 and CPU per request, and DynamoDB requests per API
//    request counted on the wire (key lookups included).
// 2. Each Lambda handler alone, warm, against the floor (`npm run bench:handlers`).
// 3. The filtered listing, first page and a page from the middle, over 1,000 and 100,000
//    animals: two `npm start` servers side by side.
// Environment: BENCH_QUICK=1 (a short run that proves it works: few, short rounds, 10,000
// animals for 100,000), BENCH_ROUNDS (9), BENCH_ROUND_SECONDS (1.2), BENCH_PARTS
// (server,handlers,scaling), BENCH_CPU_PROF=dir (a V8 CPU profile of each server there);
// HANDLER_* as for `npm run bench:handlers`.
import { writeFileSync } from 'node:fs';
import type { RequestSpec } from '../tools/harness/http-client.ts';
import { type HandlerOptions, measureHandlers } from './support/handler-bench.ts';
import { describeMachine, machineInfo } from './support/machine.ts';
import { report } from './support/report.ts';
import { SEED_FIRST_ID, seedPets } from './support/seed.ts';
import { type BenchServer, startBareServer, startUserServer } from './support/servers.ts';
import { compare, type Side } from './support/side-by-side.ts';

const quick = process.env.BENCH_QUICK === '1';
const SMALL_TABLE = 1_000;
const LARGE_TABLE = quick ? 10_000 : 100_000;
const parts = new Set((process.env.BENCH_PARTS ?? 'server,handlers,scaling').split(','));
// Many short rounds: a burst from another process spoils one or two of them, not the median.
const load = {
  connections: 16,
  rounds: Number(process.env.BENCH_ROUNDS ?? (quick ? 2 : 9)),
  roundSeconds: Number(process.env.BENCH_ROUND_SECONDS ?? (quick ? 0.5 : 1.2)),
  warmupSeconds: quick ? 0.3 : 0.5,
};
// p50s settle sooner; a longer warm-up, as both servers start cold.
const scalingLoad = { ...load, connections: 8, roundSeconds: Math.min(load.roundSeconds, 1), warmupSeconds: 1.5 };
const handlerOptions: HandlerOptions | undefined = quick
  ? { rounds: 2, invocationsPerRound: 50, warmupInvocations: 50 }
  : undefined;

const started = performance.now();
const log = (message: string) =>
  console.error(`[${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${message}`);
const machine = machineInfo();
log(`machine: ${describeMachine(machine)}${quick ? '; BENCH_QUICK: the figures mean nothing' : ''}`);

const get = (path: string) => () => ({ method: 'GET', path });
const create = (i: number) => ({
  method: 'POST',
  path: '/pets',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ name: `Bench ${i}`, categoryId: (i % 50) + 1, status: 'available' }),
});
const getSeeded = (i: number) => ({ method: 'GET', path: `/pets/${SEED_FIRST_ID + (i % SMALL_TABLE)}` });
/** Request i carries keys[i % keys.length]. */
const withKey =
  (keys: string[], request: (i: number) => RequestSpec) =>
  (i: number): RequestSpec => {
    const spec = request(i);
    return { ...spec, headers: { Authorization: `Bearer ${keys[i % keys.length]}`, ...spec.headers } };
  };

const measureServer = async () => {
  const [server, bare] = await Promise.all([startUserServer(), startBareServer()]);
  try {
    await Promise.all([server, bare].map((s) => seedPets(s.dynamodbEndpoint, 0, SMALL_TABLE)));
    // A key per connection, as many clients: each key has its own limit (PETSTORE_KEY_RATE,
    // 1,000/s by default), which one key for all the load could reach on a quiet machine.
    const keys = [server.key, ...(await server.keys(load.connections - 1))];
    const sides = (request: (i: number) => RequestSpec, expectedStatus = 200): [Side, Side] => [
      { server: bare, request, expectedStatus },
      { server, request: withKey(keys, request), expectedStatus },
    ];
    const routes: Array<[string, (i: number) => RequestSpec, number]> = [
      ['getPet', getSeeded, 200],
      ['listPets', get('/pets?limit=20'), 200],
      ['listPets status=sold', get('/pets?status=sold&limit=20'), 200],
      ['createPet', create, 201], // last: creates grow the table
    ];
    const comparisons = [];
    for (const [name, request, status] of routes) {
      log(`measuring ${name}, ${load.connections} connections`);
      comparisons.push(await compare(name, ...sides(request, status), load));
    }
    log('measuring getPet, one connection');
    comparisons.push(await compare('getPet', ...sides(getSeeded), { ...load, connections: 1 }));
    return comparisons;
  } finally {
    await Promise.all([server.stop(), bare.stop()]);
  }
};

/** A cursor to the page that starts about halfway through the available animals. */
const middleCursor = async (server: BenchServer & { key: string }, animals: number): Promise<string> => {
  let url = `${server.baseUrl}/pets?status=available&limit=100`;
  for (let page = 0; page < Math.floor(animals / 3 / 2 / 100); page++) {
    const response = await fetch(url, { headers: { Authorization: `Bearer ${server.key}` } });
    await response.arrayBuffer();
    url = new URL(/<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')![1]!, server.baseUrl).href;
  }
  return new URL(url).searchParams.get('cursor')!;
};

const measureScaling = async () => {
  const [small, large] = await Promise.all([startUserServer(), startUserServer()]);
  try {
    await seedPets(small.dynamodbEndpoint, 0, SMALL_TABLE);
    const seedingMs = await seedPets(large.dynamodbEndpoint, 0, LARGE_TABLE);
    log(`seeded ${LARGE_TABLE} animals in ${Math.round(seedingMs)} ms`);
    const comparisons = [];
    for (const page of ['first', 'middle'] as const) {
      const side = async (server: typeof small, animals: number): Promise<Side> => {
        const cursor = page === 'middle' ? `&cursor=${await middleCursor(server, animals)}` : '';
        return {
          server,
          request: withKey([server.key], get(`/pets?status=available&limit=20${cursor}`)),
          expectedStatus: 200,
        };
      };
      const name = `listPets status, ${page} page`;
      log(`measuring ${name}, ${SMALL_TABLE} against ${LARGE_TABLE} animals`);
      comparisons.push(
        await compare(name, await side(small, SMALL_TABLE), await side(large, LARGE_TABLE), scalingLoad),
      );
    }
    return { animals: [SMALL_TABLE, LARGE_TABLE], seedingMs: Math.round(seedingMs), comparisons };
  } finally {
    await Promise.all([small.stop(), large.stop()]);
  }
};

const server = parts.has('server') ? await measureServer() : undefined;
const handlers = parts.has('handlers') ? await measureHandlers(handlerOptions, undefined, log) : undefined;
const scaling = parts.has('scaling') ? await measureScaling() : undefined;
const results = report({ machine, quick, load, scalingLoad, server, handlers, scaling });
writeFileSync(new URL('./results.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
log('done; wrote bench/results.json');
if (results.failedRequests > 0) process.exitCode = 1;
