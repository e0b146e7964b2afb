// `npm run fuzz`: the fuzzing of test/e2e/fuzz.test.ts at length, against `npm start`'s
// server in its own process. FUZZ_RUNS (10000), FUZZ_PARALLEL (4), FUZZ_SECONDS (600);
// FUZZ_SEED replays a run (with the same FUZZ_PARALLEL).
import { fuzz } from '../tools/harness/fuzz/run.ts';
import { disposeServer, startLocalServer } from '../tools/harness/local-server.ts';
import { counts } from './support/stats.ts';

const runs = Number(process.env.FUZZ_RUNS ?? 10_000);
const timeLimitMs = Number(process.env.FUZZ_SECONDS ?? 600) * 1000;
const parallel = Number(process.env.FUZZ_PARALLEL ?? 4);
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;

const server = await startLocalServer();
try {
  const started = performance.now();
  const outcome = await fuzz({ baseUrl: server.baseUrl, key: server.key, runs, timeLimitMs, parallel, seed });
  const cut = outcome.interrupted ? ', cut short by FUZZ_SECONDS' : '';
  console.log(
    `${outcome.requests} requests in ${((performance.now() - started) / 1000).toFixed(1)} s (seed ${outcome.seed}${cut})`,
  );
  console.log(`statuses: ${counts(outcome.statuses)}`);
  const failure =
    outcome.failure ?? (outcome.requests < runs ? `only ${outcome.requests} of ${runs} requests were sent` : undefined);
  console.log(failure ? `FAILED: ${failure}` : 'no 5xx, every error in the contract Error body, nothing leaked');
  if (failure) process.exitCode = 1;
} finally {
  await disposeServer(server);
}
