// `npm run bench`: the local stage against a bare baseline, side by side, on fresh
// embedded DynamoDBs, and the filtered listing over 1,000 and 100,000 animals. Prints
// tables and writes bench/results.json. Knobs: BENCH_CONCURRENCY (8), BENCH_ROUNDS (9),
// BENCH_ROUND_MS (1200); BENCH_CPU_PROF=dir writes a V8 CPU profile of each server process.
import { writeFileSync } from 'node:fs';
import { DEPLOYED_AUTHORIZER_CACHE_TTL_SECONDS } from '../infra/stages.ts';
import { generateKey } from '../shared/domain/api-keys.ts';
import type { RequestSpec } from '../test/support/http-load.ts';
import { measureAuthorizer } from './support/authorizer.ts';
import { type Comparison, compare, type Side } from './support/compare.ts';
import { describeMachine, machineInfo } from './support/machine.ts';
import { report } from './support/report.ts';
import { SEED_FIRST_ID, seedPets } from './support/seed.ts';
import { startTarget, type Target } from './support/target-protocol.ts';

const SMALL_TABLE = 1_000;
const LARGE_TABLE = 100_000;
const options = {
  concurrency: Number(process.env.BENCH_CONCURRENCY ?? 8),
  // Many short rounds: a burst from another process spoils one or two pairs, and the
  // median over the pairs does not move.
  roundMs: Number(process.env.BENCH_ROUND_MS ?? 1200),
  rounds: Number(process.env.BENCH_ROUNDS ?? 9),
  warmupMs: 500,
};
// The scaling pairs compare p50s, which settle sooner; a longer warm-up, as the two stages start cold.
const scalingOptions = { ...options, roundMs: 1000, rounds: 9, warmupMs: 1500 };

const started = performance.now();
const log = (message: string) =>
  console.error(`[${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${message}`);
const machine = machineInfo();
log(`machine: ${describeMachine(machine)}`);

// Two stages, each with its own fresh DynamoDB: one holds 1,000 animals, the other
// 100,000, so that the filtered listing can be measured over both side by side.
const targetOptions = {
  authorizerCacheTtlSeconds: DEPLOYED_AUTHORIZER_CACHE_TTL_SECONDS,
  cpuProfileDir: process.env.BENCH_CPU_PROF,
};
const [small, large] = await Promise.all([startTarget(targetOptions), startTarget(targetOptions)]);
try {
  const seeding = {
    small: { animals: SMALL_TABLE, ms: await seedPets(small.dynamodbEndpoint, 0, SMALL_TABLE) },
    large: { animals: LARGE_TABLE, ms: await seedPets(large.dynamodbEndpoint, 0, LARGE_TABLE) },
  };
  log(
    `seeded ${SMALL_TABLE} animals in ${Math.round(seeding.small.ms)} ms and ${LARGE_TABLE} in ${Math.round(seeding.large.ms)} ms`,
  );

  const auth = (target: Target) => ({ Authorization: `Bearer ${target.key}` });
  // Fills the authorizer cache before any load: the load measures cached auth, as a
  // steady deployed stage sees it. Misses are measured on their own below.
  for (const target of [small, large]) await fetch(`${target.baseUrl}/pets?limit=1`, { headers: auth(target) });

  const local = (
    target: Target,
    request: (i: number) => Omit<RequestSpec, 'headers'> & { headers?: Record<string, string> },
    expectedStatus = 200,
  ): Side => ({
    target,
    baseUrl: target.baseUrl,
    request: (i) => {
      const spec = request(i);
      return { ...spec, headers: { ...auth(target), ...spec.headers } };
    },
    expectedStatus,
  });
  const baseline = (target: Target, request: (i: number) => RequestSpec, expectedStatus = 200): Side => ({
    target,
    baseUrl: target.baselineUrl,
    request,
    expectedStatus,
  });
  const get = (path: string) => () => ({ method: 'GET', path });
  const createBody = (i: number) =>
    JSON.stringify({ name: `Bench ${i}`, categoryId: (i % 50) + 1, status: 'available' });
  const create = (i: number) => ({
    method: 'POST',
    path: '/pets',
    headers: { 'Content-Type': 'application/json' },
    body: createBody(i),
  });
  const getSeeded = (i: number) => ({ method: 'GET', path: `/pets/${SEED_FIRST_ID + (i % SMALL_TABLE)}` });

  const operations: Comparison[] = [];
  const measure = async (name: string, reference: Side, measured: Side, list: Comparison[], opts = options) => {
    log(`measuring ${name}`);
    list.push(await compare(name, reference, measured, opts));
  };
  // First, while both stages are equally fresh (a stage warmed by minutes of load answers
  // faster than one that only took the seeding): the status index over 1,000 and over
  // 100,000 animals, its first page and a page from a cursor in the middle (seeded
  // index % 3 === 0 is `available`).
  const middleOf = (count: number) => SEED_FIRST_ID + Math.floor(count / 6) * 3;
  const scaling: Comparison[] = [];
  for (const page of ['first', 'middle'] as const) {
    const path = async (target: Target, count: number) =>
      page === 'first'
        ? '/pets?status=available&limit=20'
        : `/pets?status=available&limit=20&cursor=${await target.cursor(middleOf(count), 'available')}`;
    const basePath = (count: number) =>
      page === 'first' ? '/pets?status=available&limit=20' : `/pets?status=available&limit=20&after=${middleOf(count)}`;
    const name = `listPets status, ${page} page`;
    await measure(
      `${name}: local stage`,
      local(small, get(await path(small, SMALL_TABLE))),
      local(large, get(await path(large, LARGE_TABLE))),
      scaling,
      scalingOptions,
    );
    await measure(
      `${name}: baseline`,
      baseline(small, get(basePath(SMALL_TABLE))),
      baseline(large, get(basePath(LARGE_TABLE))),
      scaling,
      scalingOptions,
    );
  }

  await measure('getPet', baseline(small, getSeeded), local(small, getSeeded), operations);
  await measure('listPets', baseline(small, get('/pets?limit=20')), local(small, get('/pets?limit=20')), operations);

  // Last: creates grow the small table.
  await measure('createPet', baseline(small, create, 201), local(small, create, 201), operations);

  log('measuring authorizer cache misses');
  const authorizer = await measureAuthorizer(small, generateKey);

  const results = report({
    machine,
    options,
    scalingOptions,
    authorizerCacheTtlSeconds: DEPLOYED_AUTHORIZER_CACHE_TTL_SECONDS,
    seeding,
    operations,
    scaling,
    authorizer,
  });
  writeFileSync(new URL('./results.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
  log('done; wrote bench/results.json');
  if (results.failedRequests > 0) process.exitCode = 1;
} finally {
  await Promise.all([small.stop(), large.stop()]);
}
