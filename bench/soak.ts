// `npm run soak`: `npm start`'s server (its defaults) under a steady mix of 3 creates, 3
// reads and 4 listings in 10 on 50 connections (autocannon), for SOAK_SECONDS (30, at
// least 10). Afterwards every created animal must be readable, no request may have failed,
// and the server's heap after GC must have stayed flat from the end of the warm-up to the
// end. Memory is read by the probe (tools/harness/probe.ts). Writes bench/results-soak.json.
import { setTimeout as pause } from 'node:timers/promises';
import autocannon from 'autocannon';
import { runningDynamoDB } from '../infra/local/embedded-dynamodb.ts';
import type { OperationId } from '../shared/api/routes.ts';
import type { Pet } from '../shared/api/schemas.ts';
import { httpClient, inParallel } from '../tools/harness/http-client.ts';
import { disposeServer, startLocalServer } from '../tools/harness/local-server.ts';
import { type SampleRequest, sampleHttpRequest, sampleRequests } from '../tools/harness/sample-requests.ts';
import { SEED_FIRST_ID, STATUSES, seedPets } from './support/seed.ts';
import { autocannonRequest } from './support/side-by-side.ts';
import { round, writeResults } from './support/stats.ts';

const SECONDS = Math.max(10, Number(process.env.SOAK_SECONDS ?? 30));
const CONNECTIONS = 50;
const WARMUP_SECONDS = 5;
const SEEDED = 1_000;
/** Flat: the heap after GC at the end is within this of the heap after GC once warm. */
const FLAT_HEAP_GROWTH_BYTES = 8 * 2 ** 20;
const MiB = (bytes: number) => round(bytes / 2 ** 20, 1);
const pick = <T>(items: readonly T[], n: number) => items[n % items.length]!;

const server = await startLocalServer(
  {},
  { defaults: true, probe: true, keepOutput: false, nodeArgs: ['--expose-gc'] },
);
const probe = server.probe!;
try {
  await seedPets(runningDynamoDB(server.dataDir)!, SEEDED);
  const auth = { Authorization: `Bearer ${server.key}` };
  /** Each created animal's id, in order, and the body its create answered. */
  const createdIds: number[] = [];
  const created = new Map<number, string>();
  const failed: Record<string, number> = {};
  let i = 0;
  /** The n-th request of an operation: its valid sample (tools/harness/sample-requests.ts) with what varies. */
  const operation = (operationId: OperationId, sample: (n: number) => SampleRequest) => ({
    setupRequest: (base: autocannon.Request) =>
      autocannonRequest(server.baseUrl, sampleHttpRequest(operationId, sample(i++), { headers: auth }), base),
    onResponse: (status: number, body: string) => {
      if (status !== sampleRequests[operationId].valid.status) failed[operationId] = (failed[operationId] ?? 0) + 1;
      else if (operationId === 'createPet') {
        const pet = JSON.parse(body) as Pet;
        created.set(pet.id, body);
        createdIds.push(pet.id);
      }
    },
  });
  const create = operation('createPet', (n) => ({
    body: { name: `Soak ${n}`, categoryId: (n % 97) + 1, status: pick(STATUSES, n) },
  }));
  const read = operation('getPet', (n) => ({
    pathParameters: { petId: String(createdIds.length ? pick(createdIds, n * 7919) : SEED_FIRST_ID + (n % SEEDED)) },
  }));
  const list = operation('listPets', (n) => ({
    query: { limit: String((n % 100) + 1), ...(n % 3 && { status: pick(STATUSES, n) }) },
  }));

  const warm = new Promise<NodeJS.MemoryUsage>((resolve) =>
    setTimeout(() => resolve(probe.memory(true)), WARMUP_SECONDS * 1000),
  );
  const result = await autocannon({
    url: server.baseUrl,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: [create, read, list, create, read, list, create, read, list, list],
  });
  const [warmMemory, endMemory] = [await warm, await probe.memory(true)];

  // Every created animal, read back one by one, as a well-behaved client reads: faster than the
  // key's steady rate (PETSTORE_KEY_RATE), so past its burst a read is answered 429, as the contract
  // says, and is sent again after its Retry-After; any other answer than the create's is a loss.
  const reader = httpClient(server.baseUrl, CONNECTIONS);
  let unreadable = 0;
  let throttled = 0;
  await inParallel(createdIds.length, CONNECTIONS, async (n) => {
    const id = createdIds[n]!;
    const get = sampleHttpRequest('getPet', { pathParameters: { petId: `${id}` } }, { headers: auth });
    let answer = await reader.send(get);
    while (answer.status === 429) {
      throttled++;
      await pause(Number(answer.headers['retry-after'] ?? 1) * 1000);
      answer = await reader.send(get);
    }
    if (answer.status !== 200 || answer.body !== created.get(id)) unreadable++;
  });
  reader.close();

  const failures = Object.values(failed).reduce((sum, n) => sum + n, 0) + result.errors + result.timeouts;
  const growth = endMemory.heapUsed - warmMemory.heapUsed;
  const after = (key: 'heapUsed' | 'rss') => `${MiB(warmMemory[key])} → ${MiB(endMemory[key])} MiB`;
  const { duration: seconds, requests, latency } = result;
  console.log(
    `\n${CONNECTIONS} connections for ${seconds} s: ${requests.total} requests, ${requests.average}/s, ` +
      `p50 ${latency.p50} ms, p99 ${latency.p99} ms; failed ${JSON.stringify(failed)}, ${result.errors} errors, ${result.timeouts} timeouts\n` +
      `The server after GC, ${WARMUP_SECONDS} s in → at the end: heap used ${after('heapUsed')}, ` +
      `RSS ${after('rss')} (LevelDB's native caches included)`,
  );
  const checks = Object.entries({
    [`no request failed (${failures} failed)`]: failures === 0,
    [`every created animal is readable (${unreadable} of ${createdIds.length} not; ${throttled} reads answered 429 first, sent again after Retry-After)`]:
      !unreadable && createdIds.length > 0,
    [`heap stayed flat (${MiB(growth)} MiB ≤ ${MiB(FLAT_HEAP_GROWTH_BYTES)} MiB)`]: growth <= FLAT_HEAP_GROWTH_BYTES,
  });
  for (const [what, ok] of checks) console.log(`${ok ? 'ok' : 'FAILED'}: ${what}`);
  process.exitCode = checks.every(([, ok]) => ok) ? 0 : 1;
  writeResults('results-soak.json', {
    ...{ connections: CONNECTIONS, seconds, requests: requests.total, requestsPerSecond: requests.average },
    ...{ latencyMs: { p50: latency.p50, p99: latency.p99 }, failed, created: createdIds.length, unreadable, throttled },
    memory: { warm: warmMemory, end: endMemory, heapGrowthBytes: growth },
    checks: checks.map(([what, ok]) => ({ what, ok })),
  });
} finally {
  await disposeServer(server);
}
