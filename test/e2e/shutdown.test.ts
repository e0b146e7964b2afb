// Stopping under load (docs/api.md, "Local server and key tool"): every request the server
// had received before SIGTERM is answered, the last answer of each connection says
// `Connection: close`, and only then does the server close and exit.
import { connect, type Socket } from 'node:net';
import { afterAll, expect, test } from 'vitest';
import { disposeServer, type LocalServer, startLocalServer } from '../../tools/harness/local-server.ts';

let server: LocalServer | undefined;
afterAll(() => disposeServer(server));

/** A connection that collects what the server writes, until it closes. */
const open = (url: URL): Promise<{ socket: Socket; closed: Promise<string> }> =>
  new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => (received += chunk));
    let failure = '';
    socket.on('error', (e) => (failure = ` [${(e as NodeJS.ErrnoException).code}]`));
    const closed = new Promise<string>((done) => socket.on('close', () => done(received + failure)));
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });

const responses = (text: string) =>
  [...text.matchAll(/HTTP\/1\.1 (\d{3}) [^\r]*\r\n((?:[^\r]+\r\n)*)\r\n/g)].map((m) => ({
    status: Number(m[1]),
    close: /^connection: close$/im.test(m[2]!),
  }));

test('SIGTERM under load: every request received is answered, the last with Connection: close, then the server exits', async () => {
  server = await startLocalServer();
  const url = new URL(server.baseUrl);
  const request = (i: number) => {
    const head = `Host: ${url.host}\r\nAuthorization: Bearer ${server!.key}\r\n`;
    if (i % 2) return `GET ${url.pathname}/pets?limit=10 HTTP/1.1\r\n${head}\r\n`;
    const body = JSON.stringify({ name: `shutdown ${i}`, categoryId: 1 });
    return `POST ${url.pathname}/pets HTTP/1.1\r\n${head}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
  };

  // Pipelines of 10 on 30 connections, and 30 connections that send one request right before the signal.
  const pipelined = await Promise.all(Array.from({ length: 30 }, () => open(url)));
  const last = await Promise.all(Array.from({ length: 30 }, () => open(url)));
  for (const { socket } of pipelined) socket.write(Array.from({ length: 10 }, (_, i) => request(i)).join(''));
  await new Promise((resolve) => setTimeout(resolve, 50));
  for (const [i, { socket }] of last.entries()) socket.write(request(i));
  const exited = server.stop('SIGTERM');

  const answers = await Promise.all([...pipelined, ...last].map(({ closed }) => closed));
  const problems: string[] = [];
  for (const [i, text] of answers.entries()) {
    const got = responses(text);
    const expected = i < pipelined.length ? 10 : 1;
    if (got.length !== expected)
      problems.push(`connection ${i}: ${got.length} of ${expected} answers${text.slice(-14)}`);
    if (got.some((r) => r.status >= 500)) problems.push(`connection ${i}: ${got.map((r) => r.status)}`);
    if (got.length && !got.at(-1)!.close) problems.push(`connection ${i}: the last answer keeps the connection open`);
    if (got.slice(0, -1).some((r) => r.close)) problems.push(`connection ${i}: closed before its last answer`);
  }
  expect(problems).toEqual([]);
  expect(await exited).toBe(0);
}, 60_000);
