// Property-based fuzzing of the local server, bounded in count and time: random and
// malformed bodies, query strings, headers, path parameters and oversized inputs
// never get a 5xx, always get the contract's Error body for a 4xx, and leak nothing.
// `npm run fuzz` runs the same for 10,000 requests; FUZZ_SEED replays a run.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fuzz } from '../../tools/harness/fuzz/run.ts';
import { type LocalServer, startLocalServer } from '../../tools/harness/local-server.ts';
import { disposeServer } from './support.ts';

const RUNS = 600;
const TIME_LIMIT_MS = 12_000;

let server: LocalServer;
beforeAll(async () => {
  server = await startLocalServer();
});
afterAll(() => disposeServer(server));

it(`answers ${RUNS} fuzzed requests within the contract`, async () => {
  const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
  const outcome = await fuzz({
    baseUrl: server.baseUrl,
    key: server.key,
    runs: RUNS,
    timeLimitMs: TIME_LIMIT_MS,
    parallel: 2,
    seed,
  });
  expect(outcome.failure).toBeUndefined();
  // The time limit may cut the run short on a busy machine, but never to a token few.
  expect(outcome.requests).toBeGreaterThanOrEqual(outcome.interrupted ? 50 : RUNS);
  // The draw reaches past authentication into every kind of answer.
  for (const status of [200, 201, 400, 401, 404]) expect(outcome.statuses[status] ?? 0).toBeGreaterThan(0);
}, 30_000);
