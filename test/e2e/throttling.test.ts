// Stage throttling over HTTP: past the stage's limit, 429 with the contract's Error
// body; the limit is the README's PETSTORE_THROTTLE_RATE / PETSTORE_THROTTLE_BURST.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LocalServer } from '../../tools/harness/local-server.ts';
import { call, disposeServer, expectError, startServer } from './support.ts';

let server: LocalServer;
beforeAll(async () => {
  server = await startServer({ PETSTORE_THROTTLE_RATE: '2', PETSTORE_THROTTLE_BURST: '5' });
});
afterAll(() => disposeServer(server));

it('answers 429 TOO_MANY_REQUESTS past the limit, and serves again once the limit allows', async () => {
  // 30 at once against a bucket of 5 that refills 2 per second.
  const replies = await Promise.all(Array.from({ length: 30 }, () => call(server, '/pets')));
  const throttled = replies.filter((reply) => reply.status === 429);
  expect(throttled.length).toBeGreaterThan(0);
  expect(replies.filter((reply) => reply.status === 200).length).toBeGreaterThan(0);
  for (const reply of throttled) expectError(reply, 429, 'TOO_MANY_REQUESTS', [server.key]);

  let status = 429;
  for (let attempt = 0; attempt < 20 && status === 429; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    status = (await call(server, '/pets')).status;
  }
  expect(status).toBe(200);
});
