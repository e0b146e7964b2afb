// `npm run load`: the local stage (as `npm start` runs it, its defaults but LOG_LEVEL=ERROR) under the
// two loads that took it down (issue 10): bursts of 500 simultaneous connections, and a
// client that pipelines 1,000 requests a second on one connection and never reads an answer.
// A normal client (one keep-alive connection, one request at a time, its own key) runs throughout;
// the load's key is over its own burst and gets 429s, which the contract allows, the normal one none.
// Reports 5xx and 429 counts, the normal client's p99 with the pipelining client alone
// and during the bursts, and the server's peak RSS. Writes bench/results-load.json.
// Environment: LOAD_CONNECTIONS (500 a burst), LOAD_ROUNDS (5 bursts).
import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { setTimeout as pause } from 'node:timers/promises';
import { type HttpClient, httpClient, type RequestSpec } from '../tools/harness/http-client.ts';
import { disposeServer, startLocalServer } from '../tools/harness/local-server.ts';
import { sampleHttpRequest } from '../tools/harness/sample-requests.ts';
import { ascending, percentile, round, writeResults } from './support/stats.ts';

const BURST = Number(process.env.LOAD_CONNECTIONS ?? 500);
const ROUNDS = Number(process.env.LOAD_ROUNDS ?? 5);
const PIPELINED = 1_000;

const server = await startLocalServer({ LOG_LEVEL: 'ERROR' }, { defaults: true, probe: true, keepOutput: false });
const auth = { Authorization: `Bearer ${server.key}` };
/**
 * The normal client's own key, issued by the key tool as a user would: the bursts' key is over its
 * own limit (its burst, PETSTORE_KEY_BURST) and gets 429s, as the contract says, and "other keys
 * are not slowed by it": the normal client is another client, with another key.
 */
const normalKey = await new Promise<string>((resolve, reject) =>
  execFile(
    process.execPath,
    ['tools/keys/cli.ts', 'create', '--label', 'load: normal client'],
    { env: { ...process.env, PETSTORE_DATA_DIR: server.dataDir } },
    (error, stdout) => {
      const key = /\b(pet_[0-9A-Za-z]+)/.exec(stdout)?.[1];
      return error || !key ? reject(error ?? new Error(`no key in: ${stdout}`)) : resolve(key);
    },
  ),
);
// The harness's sample requests (tools/harness/sample-requests.ts), with the bench's page sizes and names.
const list = (limit: number) => sampleHttpRequest('listPets', { query: { limit: `${limit}` } }, { headers: auth });
const create = (i: number) =>
  sampleHttpRequest('createPet', { body: { name: `load ${i}`, categoryId: 1 } }, { headers: auth });
/** The server's resident memory now and at its peak, in MiB. */
const memory = async () => {
  const { rss, maxRSS } = await server.probe!.memory(false);
  return { rss: round(rss / 2 ** 20, 1), peak: round(maxRSS / 2 ** 20, 1) };
};

const normalList = () =>
  sampleHttpRequest('listPets', { query: { limit: '20' } }, { headers: { Authorization: `Bearer ${normalKey}` } });
/** Its answer's status; 0 when no answer came. */
const statusOf = async (client: HttpClient, spec: RequestSpec) =>
  (await client.send(spec).catch(() => ({ status: 0 }))).status;

/** The normal client: one request after another until stopped; latencies by phase. */
const phases = { idle: [] as number[], 'pipelining client': [] as number[], bursts: [] as number[] };
const normal = { phase: 'idle' as keyof typeof phases, failures: 0, running: true };
const normalClient = httpClient(server.baseUrl, 1);
const normalLoop = (async () => {
  while (normal.running) {
    const started = performance.now();
    if ((await statusOf(normalClient, normalList())) !== 200) normal.failures++;
    phases[normal.phase].push(performance.now() - started);
  }
})();

try {
  const before = await memory();
  await pause(2000);
  // The pipelining client: 1,000 requests a second, in one write each, and never a read.
  normal.phase = 'pipelining client';
  const { hostname, port, pathname } = new URL(server.baseUrl);
  const hog = connect(Number(port), hostname).pause();
  const { method, path } = list(100);
  const pipelined = `${method} ${pathname}${path} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: ${auth.Authorization}\r\n\r\n`;
  for (let second = 0; second < 5; second++) {
    hog.write(pipelined.repeat(PIPELINED));
    await pause(1000);
  }
  // Bursts: BURST connections at once, each one request (half listings, half creates).
  const statuses: Record<number, number> = {};
  const burstSeconds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    normal.phase = 'bursts';
    const burst = httpClient(server.baseUrl, Infinity);
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: BURST }, (_, i) => statusOf(burst, i % 2 ? list(20) : create(i))),
    );
    burst.close();
    burstSeconds.push(round((performance.now() - started) / 1000));
    for (const status of answers) statuses[status] = (statuses[status] ?? 0) + 1;
    normal.phase = 'pipelining client';
    await pause(1000);
  }
  hog.destroy();
  normal.running = false;
  await normalLoop;
  normalClient.close();

  const count = (test: (status: number) => boolean) =>
    Object.entries(statuses).reduce((sum, [status, n]) => sum + (test(Number(status)) ? n : 0), 0);
  const latency = (phase: keyof typeof phases) => {
    const sorted = phases[phase].sort(ascending);
    return { requests: sorted.length, p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)) };
  };
  const [alone, bursts, after] = [latency('pipelining client'), latency('bursts'), await memory()];
  const [fiveXx, tooManyRequests, noAnswer] = [count((s) => s >= 500), count((s) => s === 429), count((s) => !s)];
  console.log(
    [
      `${ROUNDS} bursts of ${BURST} simultaneous connections (${burstSeconds.join(', ')} s each): ${JSON.stringify(statuses)}`,
      `5xx: ${fiveXx}   429: ${tooManyRequests}   no answer: ${noAnswer}`,
      `normal client beside the pipelining client: p50 ${alone.p50} ms, p99 ${alone.p99} ms (${alone.requests} requests)`,
      `normal client during the bursts: p50 ${bursts.p50} ms, p99 ${bursts.p99} ms (${bursts.requests} requests); failures: ${normal.failures}`,
      `server RSS: ${before.rss} MiB at start, ${after.rss} MiB at the end, peak ${after.peak} MiB`,
    ].join('\n'),
  );
  writeResults('results-load.json', {
    ...{ burst: { connections: BURST, rounds: ROUNDS, secondsEach: burstSeconds, statuses } },
    ...{ fiveXx, tooManyRequests, noAnswer, rssMiB: { atStart: before.rss, atEnd: after.rss, peak: after.peak } },
    normalClient: { failures: normal.failures, withPipeliningClient: alone, duringBursts: bursts },
  });
  if (fiveXx || noAnswer || normal.failures) process.exitCode = 1;
} finally {
  normal.running = false;
  await disposeServer(server);
}
