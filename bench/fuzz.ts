// `npm run fuzz`: the fuzzing of test/e2e/fuzz.test.ts at length, against `npm start`'s
// server in its own process. FUZZ_RUNS (10000), FUZZ_PARALLEL (4), FUZZ_SECONDS (600);
// FUZZ_SEED replays a run (with the same FUZZ_PARALLEL).
import { rmSync } from 'node:fs';
import { fuzz } from '../tools/harness/fuzz/run.ts';
import { startLocalServer } from '../tools/harness/local-server.ts';
import { describeMachine, machineInfo } from './support/machine.ts';

const runs = Number(process.env.FUZZ_RUNS ?? 10_000);
const timeLimitMs = Number(process.env.FUZZ_SECONDS ?? 600) * 1000;
const parallel = Number(process.env.FUZZ_PARALLEL ?? 4);
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;

console.log(`machine: ${describeMachine(machineInfo())}`);
const server = await startLocalServer();
try {
  const started = performance.now();
  const outcome = await fuzz({ baseUrl: server.baseUrl, key: server.key, runs, timeLimitMs, parallel, seed });
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `${outcome.requests} requests in ${seconds.toFixed(1)} s (seed ${outcome.seed}${outcome.interrupted ? ', cut short by FUZZ_SECONDS' : ''})`,
  );
  console.log(
    `statuses: ${Object.entries(outcome.statuses)
      .map(([status, n]) => `${status}×${n}`)
      .join(' ')}`,
  );
  if (outcome.failure) {
    console.log(`FAILED: ${outcome.failure}`);
    process.exitCode = 1;
  } else if (outcome.requests < runs) {
    console.log(`FAILED: only ${outcome.requests} of ${runs} requests were sent`);
    process.exitCode = 1;
  } else {
    console.log('no 5xx, every error in the contract Error body, nothing leaked');
  }
} finally {
  await server.stop();
  rmSync(server.dataDir, { recursive: true, force: true });
}
