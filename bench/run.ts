// `npm run bench`: three parts, each side by side in one run (the two sides take turns,
// round after round; a ratio is the median of the rounds' ratios), then every figure
// against its target. Prints tables and writes bench/results.json.
// 1. `npm start`'s server, as a user starts it, against a bare one-call server, each its own
//    process on its own embedded DynamoDB: 16 connections per route, then getPet on one;
//    DynamoDB requests per API request counted on the wire (key lookups included); log
//    output per request; authorizer cache misses.
// 2. Each Lambda handler alone, warm, against the floor (bench/handlers.ts): Tracer off (the
//    target), then on with sampled and unsampled invocations.
// 3. The filtered listing over 1,000 and 100,000 animals (in-process stages).
// Knobs: BENCH_ROUNDS (9), BENCH_ROUND_MS (1200), BENCH_PARTS (server,handlers,scaling),
// HANDLER_ROUNDS, HANDLER_INVOCATIONS, HANDLER_TRACING; BENCH_CPU_PROF=dir writes a V8 CPU
// profile of each server.
import { writeFileSync } from 'node:fs';
import { DEPLOYED_AUTHORIZER_CACHE_TTL_SECONDS } from '../infra/stages.ts';
import { generateKey } from '../shared/domain/api-keys.ts';
import type { RequestSpec } from '../test/support/http-load.ts';
import { measureAuthorizer } from './support/authorizer.ts';
import { type Comparison, compare, type Side } from './support/compare.ts';
import { measureHandlers } from './support/handler-bench.ts';
import { describeMachine, machineInfo } from './support/machine.ts';
import { startBareServer, startUserServer } from './support/processes.ts';
import { report, type ServerPart } from './support/report.ts';
import { SEED_FIRST_ID, seedPets } from './support/seed.ts';
import { round } from './support/stats.ts';
import { startTarget, type Target } from './support/target-protocol.ts';

const SMALL_TABLE = 1_000;
const LARGE_TABLE = 100_000;
const parts = new Set((process.env.BENCH_PARTS ?? 'server,handlers,scaling').split(','));
const options = {
  concurrency: 16,
  // Many short rounds: a burst from another process spoils one or two pairs, and the
  // median over the pairs does not move.
  roundMs: Number(process.env.BENCH_ROUND_MS ?? 1200),
  rounds: Number(process.env.BENCH_ROUNDS ?? 9),
  warmupMs: 500,
};
// The scaling pairs compare p50s, which settle sooner; a longer warm-up, as the two stages start cold.
const scalingOptions = { ...options, concurrency: 8, roundMs: 1000, rounds: 7, warmupMs: 1500 };

const started = performance.now();
const log = (message: string) =>
  console.error(`[${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${message}`);
const machine = machineInfo();
log(`machine: ${describeMachine(machine)}`);

const get = (path: string) => () => ({ method: 'GET', path });
const create = (i: number) => ({
  method: 'POST',
  path: '/pets',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ name: `Bench ${i}`, categoryId: (i % 50) + 1, status: 'available' }),
});
const getSeeded = (count: number) => (i: number) => ({ method: 'GET', path: `/pets/${SEED_FIRST_ID + (i % count)}` });
/** Request i carries keys[i % keys.length]. */
const withKey =
  (keys: string | string[], request: (i: number) => RequestSpec) =>
  (i: number): RequestSpec => {
    const spec = request(i);
    const key = typeof keys === 'string' ? keys : keys[i % keys.length]!;
    return { ...spec, headers: { Authorization: `Bearer ${key}`, ...spec.headers } };
  };

const measureServer = async (): Promise<ServerPart> => {
  const [server, bare] = await Promise.all([startUserServer(), startBareServer()]);
  try {
    await Promise.all([
      seedPets(server.dynamodbEndpoint, 0, SMALL_TABLE),
      seedPets(bare.dynamodbEndpoint, 0, SMALL_TABLE),
    ]);
    log(`seeded ${SMALL_TABLE} animals into each`);
    // One key per connection, as many clients: each key has its own limit (PETSTORE_KEY_RATE,
    // 1,000/s by default), which one key for all the load could reach on a quiet machine.
    const keys = [server.key, ...(await server.keys(options.concurrency - 1))];
    const side = (request: (i: number) => RequestSpec, expectedStatus = 200): [Side, Side] => [
      { target: bare, baseUrl: bare.baseUrl, request, expectedStatus },
      { target: server, baseUrl: server.baseUrl, request: withKey(keys, request), expectedStatus },
    ];
    const routes: Array<[string, (i: number) => RequestSpec, number]> = [
      ['getPet', getSeeded(SMALL_TABLE), 200],
      ['listPets', get('/pets?limit=20'), 200],
      ['listPets status=sold', get('/pets?status=sold&limit=20'), 200],
      ['createPet', create, 201], // last: creates grow the table
    ];
    const comparisons: Comparison[] = [];
    for (const [name, request, status] of routes) {
      log(`measuring ${name}, ${options.concurrency} connections`);
      comparisons.push(await compare(name, ...side(request, status), options));
    }
    log('measuring getPet, one connection');
    const single = await compare('getPet, 1 connection', ...side(getSeeded(SMALL_TABLE)), {
      ...options,
      concurrency: 1,
    });

    // What the server prints per request at its default level, beside the sequential requests' count.
    const before = server.output();
    const sample = 200;
    for (let i = 0; i < sample; i++) {
      await fetch(`${server.baseUrl}/pets/${SEED_FIRST_ID + i}`, {
        headers: { Authorization: `Bearer ${server.key}` },
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 200)); // the access line follows the response
    const after = server.output();
    const output = {
      lines: round((after.lines - before.lines) / sample, 2),
      bytes: Math.round((after.bytes - before.bytes) / sample),
    };

    log('measuring authorizer cache misses');
    const authorizer = await measureAuthorizer(server, generateKey);
    return { comparisons, single, output, authorizer };
  } finally {
    await Promise.all([server.stop(), bare.stop()]);
  }
};

const measureScaling = async () => {
  // Two stages, each with its own fresh DynamoDB: one holds 1,000 animals, the other 100,000.
  const targetOptions = { authorizerCacheTtlSeconds: DEPLOYED_AUTHORIZER_CACHE_TTL_SECONDS };
  const [small, large] = await Promise.all([startTarget(targetOptions), startTarget(targetOptions)]);
  try {
    const seeding = {
      small: { animals: SMALL_TABLE, ms: await seedPets(small.dynamodbEndpoint, 0, SMALL_TABLE) },
      large: { animals: LARGE_TABLE, ms: await seedPets(large.dynamodbEndpoint, 0, LARGE_TABLE) },
    };
    log(`seeded ${LARGE_TABLE} animals in ${Math.round(seeding.large.ms)} ms`);
    for (const target of [small, large])
      await fetch(`${target.baseUrl}/pets?limit=1`, { headers: { Authorization: `Bearer ${target.key}` } });
    const local = (target: Target, path: string): Side => ({
      target,
      baseUrl: target.baseUrl,
      request: withKey(target.key, get(path)),
      expectedStatus: 200,
    });
    const baseline = (target: Target, path: string): Side => ({
      target,
      baseUrl: target.baselineUrl,
      request: get(path),
      expectedStatus: 200,
    });
    // The status index, its first page and a page from a cursor in the middle (seeded index % 3 === 0 is `available`).
    const middleOf = (count: number) => SEED_FIRST_ID + Math.floor(count / 6) * 3;
    const scaling: Comparison[] = [];
    for (const page of ['first', 'middle'] as const) {
      const path = async (target: Target, count: number) =>
        page === 'first'
          ? '/pets?status=available&limit=20'
          : `/pets?status=available&limit=20&cursor=${await target.cursor(middleOf(count), 'available')}`;
      const basePath = (count: number) =>
        page === 'first'
          ? '/pets?status=available&limit=20'
          : `/pets?status=available&limit=20&after=${middleOf(count)}`;
      const name = `listPets status, ${page} page`;
      log(`measuring ${name}, 1,000 against 100,000 animals`);
      scaling.push(
        await compare(
          `${name}: local stage`,
          local(small, await path(small, SMALL_TABLE)),
          local(large, await path(large, LARGE_TABLE)),
          scalingOptions,
        ),
      );
      scaling.push(
        await compare(
          `${name}: baseline`,
          baseline(small, basePath(SMALL_TABLE)),
          baseline(large, basePath(LARGE_TABLE)),
          scalingOptions,
        ),
      );
    }
    return { seeding, scaling };
  } finally {
    await Promise.all([small.stop(), large.stop()]);
  }
};

const server = parts.has('server') ? await measureServer() : undefined;
const handlers = parts.has('handlers') ? await measureHandlers(undefined, undefined, log) : undefined;
const scaling = parts.has('scaling') ? await measureScaling() : undefined;
const results = report({ machine, options, scalingOptions, server, handlers, scaling });
writeFileSync(new URL('./results.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
log('done; wrote bench/results.json');
if (results.failedRequests > 0) process.exitCode = 1;
