// The harness's probe (tools/harness/probe.ts) counts the DynamoDB requests a process answers in
// every thread, not only its main one: the server's store runs in a worker
// (infra/local/dynamodb-thread.ts), and diagnostics_channel, which the probe counts through, is
// per thread. A process here answers DynamoDB-shaped requests on a server in a worker and on one
// in its main thread; the probe must count both.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { PROBE, probeOf } from '../../tools/harness/probe-client.ts';

/** The worker: an HTTP server answering 200, its port sent to the main thread. A file, as the server's is: Node runs `--import` in a worker made from a file, not in one from a string. */
const WORKER = `const s = require('node:http').createServer((q, r) => q.resume().on('end', () => r.end('{}')));
s.listen(0, '127.0.0.1', () => require('node:worker_threads').parentPort.postMessage(s.address().port));`;
/** The same in the main thread too; prints `main <port> worker <port>` once both listen. */
const PROCESS = `
const { createServer } = require('node:http');
const { Worker } = require('node:worker_threads');
const worker = new Worker(process.argv[1]);
const main = createServer((q, r) => q.resume().on('end', () => r.end('{}')));
main.listen(0, '127.0.0.1', () => worker.once('message', (port) => console.log('main', main.address().port, 'worker', port)));
process.on('disconnect', () => process.exit(0));
`;

const dir = mkdtempSync(join(tmpdir(), 'probe-threads-'));
let child: ChildProcess;
let ports: { main: number; worker: number };
beforeAll(async () => {
  writeFileSync(join(dir, 'worker.cjs'), WORKER);
  child = spawn(process.execPath, ['--import', PROBE, '-e', PROCESS, join(dir, 'worker.cjs')], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  const [, main, , worker] = String(line).trim().split(' ');
  ports = { main: Number(main), worker: Number(worker) };
});
afterAll(() => {
  child.kill();
  rmSync(dir, { recursive: true, force: true });
});

const send = async (port: number, operation: string) => {
  const res = await fetch(`http://127.0.0.1:${port}/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': `DynamoDB_20120810.${operation}` },
    body: '{}',
  });
  await res.text();
};

test('counts the requests answered in a worker thread and in the main thread, by operation', async () => {
  const probe = probeOf(child);
  expect(await probe.dynamodbRequests()).toEqual({});
  await send(ports.worker, 'GetItem');
  await send(ports.worker, 'GetItem');
  await send(ports.worker, 'Query');
  await send(ports.main, 'GetItem');
  expect(await probe.dynamodbRequests()).toEqual({ GetItem: 3, Query: 1 });
  await send(ports.worker, 'PutItem');
  expect(await probe.dynamodbRequests()).toEqual({ GetItem: 3, Query: 1, PutItem: 1 });
});
