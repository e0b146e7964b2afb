// When the local stage gives memory back (infra/local/idle-memory.ts): only once its requests
// are over, only after it grew, and with the collection that does shrink V8's heap.

import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { afterEach, expect, test, vi } from 'vitest';
import { collectAllAvailableGarbage, reduceMemoryWhenIdle } from '../../infra/local/idle-memory.ts';
import { npmScriptCommand } from '../../tools/harness/local-server.ts';

const IDLE_MS = 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let server: Server;
afterEach(() => {
  server?.close();
  vi.restoreAllMocks();
});

/** A server whose requests take `?ms=` to answer, watched with a counting `collect`. */
const watched = async (growthBytes: number) => {
  let collections = 0;
  server = createServer((req, res) => {
    const ms = Number(new URL(req.url!, 'http://x').searchParams.get('ms') ?? 0);
    setTimeout(() => res.end('{}'), ms);
  });
  const collect = () => {
    collections += 1;
  };
  reduceMemoryWhenIdle(server, { idleMs: IDLE_MS, growthBytes, collect });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const call = (ms = 0) => fetch(`http://127.0.0.1:${port}/?ms=${ms}`).then((r) => r.text());
  return { call, collections: () => collections };
};

test('when RSS cannot be read (no file descriptor left: EMFILE), skips the check instead of throwing', async () => {
  const { call, collections } = await watched(0);
  await call();
  const emfile = Object.assign(new Error('EMFILE: too many open files, uv_resident_set_memory'), { code: 'EMFILE' });
  const rss = vi.spyOn(process.memoryUsage, 'rss').mockImplementation(() => {
    throw emfile;
  });
  const uncaught = vi.fn();
  process.prependOnceListener('uncaughtException', uncaught);
  await sleep(IDLE_MS * 2);
  process.off('uncaughtException', uncaught);
  expect(rss).toHaveBeenCalled();
  expect(uncaught).not.toHaveBeenCalled();
  expect(collections()).toBe(0);
  rss.mockRestore();
  await call();
  await sleep(IDLE_MS * 2);
  expect(collections()).toBe(1); // readable again: the next idle spell collects
});

test('collects once after a burst, not while a request is in flight, not again without requests', async () => {
  const { call, collections } = await watched(0);
  await Promise.all(Array.from({ length: 20 }, () => call()));
  expect(collections()).toBe(0); // the burst just ended
  await sleep(IDLE_MS * 2);
  expect(collections()).toBe(1);
  await sleep(IDLE_MS * 3);
  expect(collections()).toBe(1); // idle since: nothing new to give back
  const slow = call(IDLE_MS * 4);
  await sleep(IDLE_MS * 3);
  expect(collections()).toBe(1); // a request in flight: the burst is not over
  await slow;
  await sleep(IDLE_MS * 2);
  expect(collections()).toBe(2);
});

test('does not collect when memory did not grow by the threshold', async () => {
  const { call, collections } = await watched(1024 ** 4);
  await Promise.all(Array.from({ length: 20 }, () => call()));
  await sleep(IDLE_MS * 3);
  expect(collections()).toBe(0);
});

// V8's gc extension takes `flavor: 'last-resort'` (CollectAllAvailableGarbage: it also shrinks the
// young generation and returns pooled pages); a V8 that ignored it would run a plain full
// collection, which leaves the young generation as large as the load made it (the server's RSS
// stayed at ~300 MB). Held here, in a process with the server's flags, so that a Node upgrade
// cannot make the reduction a no-op.
test('the collection shrinks the young generation, which a plain full collection leaves grown', () => {
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    import { collectAllAvailableGarbage } from ${JSON.stringify(resolve('infra/local/idle-memory.ts'))};
    const newSpace = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size;
    // Requests' worth of garbage, part of it surviving a scavenge or two, as under load.
    const churn = () => {
      const ring = new Array(50_000);
      for (let i = 0; i < 2_000_000; i += 1) ring[i % ring.length] = { i, s: 'x' + i, a: [i, i] };
    };
    churn();
    globalThis.gc({ type: 'major', execution: 'sync' });
    const plain = newSpace();
    churn();
    collectAllAvailableGarbage()();
    console.log(JSON.stringify({ plain, reduced: newSpace() }));
  `;
  // npm start's Node, flags and environment, running this program in the server's place.
  const node = npmScriptCommand('infra/local/server.ts', process.env, { run: ['--input-type=module', '-e', script] });
  const output = execFileSync(node.file, node.args, { env: node.env, encoding: 'utf8' });
  const { plain, reduced } = JSON.parse(output) as { plain: number; reduced: number };
  expect(reduced, `new space after a plain collection ${plain}, after this one ${reduced}`).toBeLessThan(plain / 2);
});

test('without --expose-gc there is nothing to collect with, and nothing is watched', () => {
  expect(collectAllAvailableGarbage()).toBeUndefined(); // vitest's workers run without it
});
