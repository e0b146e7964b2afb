// `npm run soak`: mixed load on 50 connections for SOAK_SECONDS (30, at least) against
// the local stage, sampling the server's memory. Afterwards every created animal
// must be readable, no request may have failed, and the heap must have stayed flat.
import { writeFileSync } from 'node:fs';
import { DEPLOYED_AUTHORIZER_CACHE_TTL_SECONDS } from '../infra/stages.ts';
import type { Pet } from '../shared/api/schemas.ts';
import { httpClient, inParallel, type RequestSpec, runLoad } from '../test/support/http-load.ts';
import { describeMachine, machineInfo } from './support/machine.ts';
import { SEED_FIRST_ID, STATUSES, seedPets } from './support/seed.ts';
import { round, summarize, table } from './support/stats.ts';
import { startTarget } from './support/target-protocol.ts';

const SECONDS = Math.max(30, Number(process.env.SOAK_SECONDS ?? 30));
const CONNECTIONS = 50;
const WARMUP_SECONDS = 5;
const SEEDED = 1_000;
/** Flat: the heap after GC at the end is within this of the heap after GC once warm. */
const FLAT_HEAP_GROWTH_BYTES = 8 * 2 ** 20;
const MiB = (bytes: number) => round(bytes / 2 ** 20, 1);

console.log(`machine: ${describeMachine(machineInfo())}`);
const target = await startTarget({ authorizerCacheTtlSeconds: DEPLOYED_AUTHORIZER_CACHE_TTL_SECONDS });
let failedChecks = 0;
try {
  await seedPets(target.dynamodbEndpoint, 0, SEEDED);
  const auth = { Authorization: `Bearer ${target.key}` };
  const created = new Map<number, Pet>();
  const createdIds: number[] = [];
  const pick = <T>(items: readonly T[], i: number) => items[i % items.length]!;

  // A mix of 3 creates, 3 reads and 4 listings in 10; reads go to created animals once there are some.
  const mix: Array<{ name: string; request: (i: number) => RequestSpec }> = [
    ...Array(3).fill({
      name: 'createPet',
      request: (i: number) => ({
        method: 'POST',
        path: '/pets',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: `Soak ${i}`, categoryId: (i % 97) + 1, status: pick(STATUSES, i) }),
      }),
    }),
    ...Array(3).fill({
      name: 'getPet',
      request: (i: number) => ({
        method: 'GET',
        path: `/pets/${createdIds.length ? pick(createdIds, i * 7919) : SEED_FIRST_ID + (i % SEEDED)}`,
        headers: auth,
      }),
    }),
    ...Array(4).fill({
      name: 'listPets',
      request: (i: number) => ({
        method: 'GET',
        path: `/pets?limit=${(i % 100) + 1}${i % 3 ? `&status=${pick(STATUSES, i)}` : ''}`,
        headers: auth,
      }),
    }),
  ];
  const operationOf = new WeakMap<RequestSpec, string>();
  const byOperation = new Map<string, { latencies: number[]; failed: number }>();
  const expected: Record<string, number> = { createPet: 201, getPet: 200, listPets: 200 };

  const samples: Array<{ second: number; rss: number; heapUsed: number }> = [];
  const started = performance.now();
  const sampler = setInterval(() => {
    void target
      .memory(false)
      .then(({ rss, heapUsed }) =>
        samples.push({ second: round((performance.now() - started) / 1000, 1), rss, heapUsed }),
      );
  }, 1000);
  const warm = new Promise<NodeJS.MemoryUsage>((resolve) =>
    setTimeout(() => resolve(target.memory(true)), WARMUP_SECONDS * 1000),
  );

  const load = await runLoad({
    baseUrl: target.baseUrl,
    concurrency: CONNECTIONS,
    durationMs: SECONDS * 1000,
    next: (i) => {
      const operation = mix[i % mix.length]!;
      const spec = operation.request(i);
      operationOf.set(spec, operation.name);
      return spec;
    },
    onAnswer: (answer, spec, latency) => {
      const name = operationOf.get(spec)!;
      const tally = byOperation.get(name) ?? { latencies: [], failed: 0 };
      byOperation.set(name, tally);
      tally.latencies.push(latency);
      if (answer.status !== expected[name]) tally.failed++;
      if (answer.status === 201) {
        const pet = JSON.parse(answer.body) as Pet;
        created.set(pet.id, pet);
        createdIds.push(pet.id);
      }
    },
  });
  clearInterval(sampler);
  const warmMemory = await warm;
  const endMemory = await target.memory(true);

  // Every created animal, read back one by one.
  const reader = httpClient(target.baseUrl, CONNECTIONS);
  let unreadable = 0;
  const readStarted = performance.now();
  await inParallel(createdIds.length, CONNECTIONS, async (i) => {
    const pet = created.get(createdIds[i]!)!;
    const answer = await reader.send({ method: 'GET', path: `/pets/${pet.id}`, headers: auth });
    if (answer.status !== 200 || answer.body !== JSON.stringify(pet)) unreadable++;
  });
  reader.close();
  const readSeconds = (performance.now() - readStarted) / 1000;

  const failed = [...byOperation.values()].reduce((sum, t) => sum + t.failed, 0) + load.networkErrors;
  const growth = endMemory.heapUsed - warmMemory.heapUsed;
  const overall = summarize(load.latencies, load.elapsedMs);
  console.log(
    `\n${CONNECTIONS} connections for ${round(load.elapsedMs / 1000, 1)} s: ${overall.requests} requests, ${overall.requestsPerSecond}/s, p50 ${overall.p50} ms, p99 ${overall.p99} ms`,
  );
  console.log(
    table([
      ['operation', 'requests', 'p50 ms', 'p99 ms', 'failed'],
      ...[...byOperation].map(([name, t]) => {
        const s = summarize(t.latencies, load.elapsedMs);
        return [name, s.requests, s.p50, s.p99, t.failed];
      }),
    ]),
  );
  const rss = samples.map((s) => s.rss);
  console.log(
    `\nServer memory (${samples.length} samples, 1 s apart): RSS ${MiB(Math.min(...rss))}–${MiB(Math.max(...rss))} MiB; heap used ${MiB(Math.min(...samples.map((s) => s.heapUsed)))}–${MiB(Math.max(...samples.map((s) => s.heapUsed)))} MiB`,
  );
  console.log(
    `Heap after GC: ${MiB(warmMemory.heapUsed)} MiB after ${WARMUP_SECONDS} s of warm-up, ${MiB(endMemory.heapUsed)} MiB at the end (${growth >= 0 ? '+' : ''}${MiB(growth)} MiB; flat means within ${MiB(FLAT_HEAP_GROWTH_BYTES)} MiB)`,
  );
  console.log(
    `RSS: ${MiB(warmMemory.rss)} MiB after warm-up, ${MiB(endMemory.rss)} MiB at the end (includes LevelDB's native caches)`,
  );
  console.log(`Read back ${createdIds.length} created animals in ${round(readSeconds, 1)} s: ${unreadable} unreadable`);

  const checks: Array<[string, boolean]> = [
    [`no request failed (${failed} failed)`, failed === 0],
    [
      `every created animal is readable (${unreadable} of ${createdIds.length} not)`,
      unreadable === 0 && createdIds.length > 0,
    ],
    [`heap stayed flat (${MiB(growth)} MiB ≤ ${MiB(FLAT_HEAP_GROWTH_BYTES)} MiB)`, growth <= FLAT_HEAP_GROWTH_BYTES],
  ];
  for (const [what, ok] of checks) console.log(`${ok ? 'ok' : 'FAILED'}: ${what}`);
  failedChecks = checks.filter(([, ok]) => !ok).length;
  const results = {
    measuredAt: new Date().toISOString(),
    machine: machineInfo(),
    connections: CONNECTIONS,
    seconds: round(load.elapsedMs / 1000, 1),
    overall,
    operations: Object.fromEntries(
      [...byOperation].map(([name, t]) => [name, { ...summarize(t.latencies, load.elapsedMs), failed: t.failed }]),
    ),
    memory: {
      warm: warmMemory,
      end: endMemory,
      heapGrowthBytes: growth,
      flatWithinBytes: FLAT_HEAP_GROWTH_BYTES,
      samples,
    },
    created: createdIds.length,
    unreadable,
    checks: checks.map(([what, ok]) => ({ what, ok })),
  };
  writeFileSync(new URL('./results-soak.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
  console.log('wrote bench/results-soak.json');
} finally {
  await target.stop();
}
process.exitCode = failedChecks ? 1 : 0;
