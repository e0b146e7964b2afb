// The local stage under load behaves like a stage with its functions' concurrency:
// what it cannot run at once waits its turn, and nothing is refused with a 5xx because
// the server overloaded itself; one connection's pipelined requests run one after
// another, so a client that pipelines and never reads cannot take the server; and
// every log line names the invocation it belongs to, however many run at once.
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { LocalServer } from '../../tools/harness/local-server.ts';
import { disposeServer, startServer } from './support.ts';

let server: LocalServer;
beforeAll(async () => {
  // No authorizer cache: every request runs the authorizer and its DynamoDB read too.
  server = await startServer({ LOG_LEVEL: 'INFO', PETSTORE_AUTHORIZER_CACHE_TTL: '0' });
});
afterAll(() => disposeServer(server));

/** One request on a connection of its own; resolves to its status (0: no answer) and latency. */
const once = (
  agent: Agent,
  method = 'GET',
  body?: string,
  to: LocalServer = server,
): Promise<{ status: number; ms: number }> =>
  new Promise((resolve) => {
    const started = performance.now();
    const headers: Record<string, string> = { Authorization: `Bearer ${to.key}` };
    if (body) headers['Content-Type'] = 'application/json';
    const req = request(`${to.baseUrl}/pets?limit=5`, { method, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
    req.end(body);
  });

const countBy = (statuses: number[]) => {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
};

test('500 simultaneous requests: each answered 2xx or 429, none 5xx', async () => {
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const answers = await Promise.all(
    Array.from({ length: 500 }, (_, i) =>
      i % 2 ? once(agent) : once(agent, 'POST', JSON.stringify({ name: `burst ${i}`, categoryId: 1 })),
    ),
  );
  const counts = countBy(answers.map((a) => a.status));
  const unexpected = Object.keys(counts).filter((status) => ![200, 201, 429].includes(Number(status)));
  expect(unexpected, JSON.stringify(counts)).toEqual([]);
}, 60_000);

test('a client pipelining 1,000 requests and never reading leaves a normal client its answers', async () => {
  const { hostname, port, pathname } = new URL(server.baseUrl);
  const hog = connect(Number(port), hostname);
  hog.pause(); // never reads an answer
  const one = `GET ${pathname}/pets?limit=100 HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${server.key}\r\n\r\n`;
  hog.write(one.repeat(1000));
  await new Promise((resolve) => setTimeout(resolve, 200));

  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const normal: Array<{ status: number; ms: number }> = [];
  for (let i = 0; i < 40; i++) normal.push(await once(agent));
  hog.destroy();
  agent.destroy();
  expect(countBy(normal.map((a) => a.status))).toEqual({ 200: 40 });
  const sorted = normal.map((a) => a.ms).sort((a, b) => a - b);
  const p99 = sorted[Math.ceil(sorted.length * 0.99) - 1]!;
  expect(p99, `latencies ${sorted.map(Math.round).join(' ')}`).toBeLessThan(1000);
}, 60_000);

test('under concurrency each log line names its own invocation (function_request_id)', async () => {
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const answers = await Promise.all(Array.from({ length: 60 }, () => once(agent)));
  expect(countBy(answers.map((a) => a.status))).toEqual({ 200: 60 });
  await new Promise((resolve) => setTimeout(resolve, 200));

  // The functions' lines name the API request (requestId) and the invocation (function_request_id).
  const invocationsOf = new Map<string, Set<string>>();
  const requestsOf = new Map<string, Set<string>>();
  for (const line of server.output().split('\n')) {
    if (!line.startsWith('{') || !line.includes('"function_request_id"')) continue;
    const { requestId, function_request_id: invocation } = JSON.parse(line) as Record<string, string>;
    if (!requestId || !invocation) continue;
    invocationsOf.set(requestId, (invocationsOf.get(requestId) ?? new Set()).add(invocation));
    requestsOf.set(invocation, (requestsOf.get(invocation) ?? new Set()).add(requestId));
  }
  expect(requestsOf.size).toBeGreaterThanOrEqual(60);
  const shared = [...requestsOf]
    .filter(([, requests]) => requests.size > 1)
    .map(([id, r]) => `${id}: ${r.size} requests`);
  expect(shared).toEqual([]);
  expect([...invocationsOf.values()].filter((invocations) => invocations.size > 1)).toEqual([]);
}, 60_000);

test("past a function's concurrency and queue, requests get 429 with Retry-After, never a 5xx", async () => {
  const tight = await startServer({
    PETSTORE_FUNCTION_CONCURRENCY: '1',
    PETSTORE_FUNCTION_QUEUE: '0',
    LOG_LEVEL: 'WARN',
  });
  try {
    const replies = await Promise.all(
      Array.from({ length: 30 }, () =>
        fetch(`${tight.baseUrl}/pets`, { headers: { Authorization: `Bearer ${tight.key}` } }),
      ),
    );
    const statuses = countBy(replies.map((r) => r.status));
    expect(Object.keys(statuses).sort(), JSON.stringify(statuses)).toEqual(['200', '429']);
    for (const reply of replies.filter((r) => r.status === 429)) {
      expect(reply.headers.get('retry-after')).toBe('1');
      expect(await reply.json()).toMatchObject({ code: 'TOO_MANY_REQUESTS', status: 429 });
    }
  } finally {
    await disposeServer(tight);
  }
}, 60_000);

test('at the deployed concurrency (1000), 1,000 simultaneous requests: each answered 2xx or 429, none 5xx', async () => {
  const wide = await startServer({
    PETSTORE_FUNCTION_CONCURRENCY: '1000',
    PETSTORE_AUTHORIZER_CACHE_TTL: '0', // every request runs the authorizer and its DynamoDB read too
    LOG_LEVEL: 'WARN',
  });
  try {
    const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
    const answers = await Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        i % 2
          ? once(agent, 'GET', undefined, wide)
          : once(agent, 'POST', JSON.stringify({ name: `wide ${i}`, categoryId: 1 }), wide),
      ),
    );
    const counts = countBy(answers.map((a) => a.status));
    const unexpected = Object.keys(counts).filter((status) => ![200, 201, 429].includes(Number(status)));
    expect(unexpected, JSON.stringify(counts)).toEqual([]);
  } finally {
    await disposeServer(wide);
  }
}, 120_000);
