// The server as `npm start` runs it gives back, once idle, the memory a burst grew
// (infra/local/idle-memory.ts): it sat at ~300 MB for good after a benchmark. Measured from
// outside, by probe.ts in the server process.
import { Agent, request } from 'node:http';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type LocalServer, startLocalServer } from '../../tools/harness/local-server.ts';

const IDLE_SECONDS = 1; // 30 by default
let server: LocalServer;
beforeAll(async () => {
  server = await startLocalServer(
    { PETSTORE_IDLE_MEMORY_SECONDS: String(IDLE_SECONDS) },
    { defaults: true, probe: true, keepOutput: false },
  );
});
afterAll(() => server?.stop());

const MB = 1024 * 1024;
const rss = async () => (await server.probe!.memory(false)).rss / MB;

/** `connections` clients sending `requests` creates and listings between them, one after another. */
const burst = async (connections: number, requests: number) => {
  const agent = new Agent({ keepAlive: true });
  const send = (i: number) =>
    new Promise<void>((done, fail) => {
      const create = i % 2 === 0;
      const req = request(
        `${server.baseUrl}/pets${create ? '' : '?limit=100'}`,
        {
          method: create ? 'POST' : 'GET',
          agent,
          headers: { Authorization: `Bearer ${server.key}`, 'Content-Type': 'application/json' },
        },
        (res) => {
          res.resume().on('end', () => (res.statusCode! < 300 ? done() : fail(new Error(`${res.statusCode}`))));
        },
      );
      req.on('error', fail);
      req.end(create ? JSON.stringify({ name: `idle ${i}`, categoryId: 1 }) : undefined);
    });
  await Promise.all(
    Array.from({ length: connections }, async (_, c) => {
      for (let i = c; i < requests; i += connections) await send(i);
    }),
  );
  agent.destroy();
};

test('after a burst, the server gives back what it grew once idle, and serves as before', async () => {
  const idle = await rss();
  await burst(16, 3_000);
  const under = await rss();
  await new Promise((r) => setTimeout(r, IDLE_SECONDS * 2000 + 500));
  const after = await rss();
  const figures = `idle ${idle.toFixed(0)}, under ${under.toFixed(0)}, after ${after.toFixed(0)} MB`;
  expect(under - idle, figures).toBeGreaterThan(40); // the burst grew it
  expect(after, figures).toBeLessThan(under - 40);
  await burst(4, 40); // and it still serves
}, 60_000);
