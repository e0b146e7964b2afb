// When each thing the local stage said happened. Its JSON lines (the functions' and the access
// log's) carry a `timestamp`; its plain-text lines (the banner, warnings, what a stop does) each
// start with the time they were written, ISO 8601 in UTC to the millisecond as those
// timestamps are, so that a captured log (a pipe, as here: not a terminal) says when a warning
// came. The contract's rule holds with it: no key in output that is not a terminal.
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, expect, test, vi } from 'vitest';
import { type LocalServer, startLocalServer } from '../../tools/harness/local-server.ts';
import { call, disposeServer } from './support.ts';

const KEY_ANYWHERE = /pet_[0-9A-Za-z]{32,}/;
/** ISO 8601, UTC, to the millisecond: what `Date.prototype.toISOString` writes, and CloudWatch reads. */
const STAMPED = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z) (\S.*)$/;

let server: LocalServer | undefined;
afterAll(() => disposeServer(server));

const silentConnection = (url: string) =>
  new Promise<Socket>((opened) => {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => opened(socket));
    socket.once('error', () => opened(socket));
  });

test('every plain-text line, on stdout and stderr, starts with the time it was written', async () => {
  const started = Date.now();
  // One connection at a time: a second one closes the first, idle, and stderr says so.
  server = await startLocalServer({ PETSTORE_MAX_CONNECTIONS: '1', LOG_LEVEL: 'INFO' });
  expect((await call(server, '/pets')).status).toBe(200); // a function's line and an access log line
  const sockets = [await silentConnection(server.baseUrl), await silentConnection(server.baseUrl)];
  await vi.waitFor(() => expect(server!.output()).toMatch(/closed \d+ idle connection/), { timeout: 5000 });
  for (const socket of sockets) socket.destroy();
  expect(await server.stop('SIGTERM')).toBe(0);
  const stopped = Date.now();

  const lines = server.output().split('\n').filter(Boolean);
  const plain = lines.filter((line) => !line.startsWith('{'));
  const json = lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
  expect(json.length).toBeGreaterThanOrEqual(2);
  for (const line of json) expect(new Date(line.timestamp).toISOString()).toBe(line.timestamp);

  const texts = plain.map((line) => {
    const [, time, text] = STAMPED.exec(line) ?? [];
    expect(time, `no timestamp: ${line}`).toBeDefined();
    // Canonical UTC, and within this test's run (to the millisecond: the clock is the same machine's).
    expect(new Date(time!).toISOString()).toBe(time);
    expect(Date.parse(time!)).toBeGreaterThanOrEqual(started);
    expect(Date.parse(time!)).toBeLessThanOrEqual(stopped);
    return text!;
  });
  // What this run made it say: the banner, the warning (stderr), the stop (stdout).
  expect(texts).toContainEqual(expect.stringMatching(/^Pet Store API \(stage local\) listening at http/));
  expect(texts).toContainEqual(expect.stringMatching(/^API key \(key_\w+\): in \/\S+ \(not printed/));
  expect(texts).toContainEqual(expect.stringMatching(/^API: closed \d+ idle connection\(s\) to keep within 1 open/));
  expect(texts.slice(-2)).toEqual(['stopping: finishing requests in flight', 'stopped']);

  // Still no key: the development key is named by its file, never printed here.
  expect(server.output()).not.toMatch(KEY_ANYWHERE);
  const key = readFileSync(join(server.dataDir, 'development-key'), 'utf8').trim();
  expect(server.output()).not.toContain(key);
}, 60_000);
