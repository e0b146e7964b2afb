// `npm run load`: the local stage (as `npm start` runs it, its defaults but LOG_LEVEL=ERROR) under the
// two loads that took it down (issue 10): bursts of 500 simultaneous connections, and a
// client that pipelines 1,000 requests a second on one connection and never reads an answer.
// A normal client (one keep-alive connection, one request at a time) runs throughout.
// Reports 5xx and 429 counts, the normal client's p99 with the pipelining client alone
// and during the bursts, and the server's peak RSS. Writes bench/results-load.json.
// Environment: LOAD_CONNECTIONS (500 a burst), LOAD_ROUNDS (5 bursts).
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { disposeServer, startLocalServer } from '../tools/harness/local-server.ts';
import { describeMachine, machineInfo } from './support/machine.ts';
import { round, summarize } from './support/stats.ts';

const BURST = Number(process.env.LOAD_CONNECTIONS ?? 500);
const ROUNDS = Number(process.env.LOAD_ROUNDS ?? 5);
const PIPELINED = 1_000;
const MiB = (kB: number) => round(kB / 1024, 1);

console.log(`machine: ${describeMachine(machineInfo())}`);
const server = await startLocalServer({ LOG_LEVEL: 'ERROR' }, { defaults: true, keepOutput: false });
const auth = { Authorization: `Bearer ${server.key}` };
const { hostname, port, pathname } = new URL(server.baseUrl);

/** The server's resident memory now and at its peak (Linux /proc), in kB. */
const memory = () => {
  const status = readFileSync(`/proc/${server.process.pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: field('VmRSS'), peak: field('VmHWM') };
};

const send = (agent: Agent, method: string, path: string, body?: string) =>
  new Promise<{ status: number; ms: number }>((resolve) => {
    const started = performance.now();
    const headers = body ? { ...auth, 'Content-Type': 'application/json' } : auth;
    const req = request(`${server.baseUrl}${path}`, { method, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
    req.end(body);
  });

/** The normal client: one request after another until stopped; latencies by phase. */
const normal = { phase: 'idle', latencies: new Map<string, number[]>(), failures: 0, running: true };
const normalAgent = new Agent({ keepAlive: true, maxSockets: 1 });
const normalLoop = (async () => {
  while (normal.running) {
    const { status, ms } = await send(normalAgent, 'GET', '/pets?limit=20');
    if (status !== 200) normal.failures++;
    const latencies = normal.latencies.get(normal.phase) ?? [];
    latencies.push(ms);
    normal.latencies.set(normal.phase, latencies);
  }
})();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

try {
  const before = memory();
  await pause(2000);

  // The pipelining client: 1,000 requests a second, in one write each, and never a read.
  normal.phase = 'pipelining client';
  const hog = connect(Number(port), hostname);
  hog.pause();
  const pipelined = `GET ${pathname}/pets?limit=100 HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: ${auth.Authorization}\r\n\r\n`;
  for (let second = 0; second < 5; second++) {
    hog.write(pipelined.repeat(PIPELINED));
    await pause(1000);
  }

  // Bursts: BURST connections at once, each one request (half listings, half creates).
  const statuses: Record<number, number> = {};
  const burstMs: number[] = [];
  for (let round_ = 0; round_ < ROUNDS; round_++) {
    normal.phase = 'bursts';
    const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: BURST }, (_, i) =>
        i % 2
          ? send(agent, 'GET', '/pets?limit=20')
          : send(agent, 'POST', '/pets', JSON.stringify({ name: `load ${i}`, categoryId: 1 })),
      ),
    );
    burstMs.push(performance.now() - started);
    for (const { status } of answers) statuses[status] = (statuses[status] ?? 0) + 1;
    normal.phase = 'pipelining client';
    await pause(1000);
  }
  hog.destroy();
  normal.running = false;
  await normalLoop;
  normalAgent.destroy();

  const count = (test: (status: number) => boolean) =>
    Object.entries(statuses).reduce((sum, [status, n]) => sum + (test(Number(status)) ? n : 0), 0);
  const latency = (phase: string) => {
    const { requests, p50, p99 } = summarize(normal.latencies.get(phase) ?? [], 1);
    return { requests, p50, p99 };
  };
  const after = memory();
  const results = {
    machine: machineInfo(),
    burst: { connections: BURST, rounds: ROUNDS, secondsEach: burstMs.map((ms) => round(ms / 1000)), statuses },
    fiveXx: count((s) => s >= 500),
    tooManyRequests: count((s) => s === 429),
    noAnswer: count((s) => s === 0),
    normalClient: {
      failures: normal.failures,
      withPipeliningClient: latency('pipelining client'),
      duringBursts: latency('bursts'),
    },
    rssMiB: { atStart: MiB(before.rss), atEnd: MiB(after.rss), peak: MiB(after.peak) },
  };
  writeFileSync('bench/results-load.json', `${JSON.stringify(results, null, 2)}\n`);
  const { withPipeliningClient: alone, duringBursts: bursts } = results.normalClient;
  console.log(
    [
      `${ROUNDS} bursts of ${BURST} simultaneous connections (${results.burst.secondsEach.join(', ')} s each): ${JSON.stringify(statuses)}`,
      `5xx: ${results.fiveXx}   429: ${results.tooManyRequests}   no answer: ${results.noAnswer}`,
      `normal client beside the pipelining client: p50 ${alone.p50} ms, p99 ${alone.p99} ms (${alone.requests} requests)`,
      `normal client during the bursts: p50 ${bursts.p50} ms, p99 ${bursts.p99} ms (${bursts.requests} requests); failures: ${normal.failures}`,
      `server RSS: ${results.rssMiB.atStart} MiB at start, ${results.rssMiB.atEnd} MiB at the end, peak ${results.rssMiB.peak} MiB`,
    ].join('\n'),
  );
  if (results.fiveXx || results.noAnswer || normal.failures) process.exitCode = 1;
} finally {
  normal.running = false;
  await disposeServer(server);
}
