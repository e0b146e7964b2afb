// Lambda freezes an execution environment once its runtime has posted the invocation's answer,
// which it does on a later turn of the event loop than the one the handler's promise settles in
// ("Lambda execution environment lifecycle": https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html).
// A sampled invocation's document must have left for the X-Ray daemon by then: endTrace does not
// wait for dgram's callback (as the X-Ray SDK's emitter does not), so this holds it to the
// property that makes that safe. A process ends its trace, then is killed (SIGKILL, harder than a
// freeze) on the next turn of its loop; the daemon must hold the document. First and later sends
// alike: the first one binds the socket.
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startXRayDaemon, type XRayDaemon } from '../../tools/harness/xray-daemon.ts';

let daemon: XRayDaemon;
beforeAll(async () => {
  daemon = await startXRayDaemon();
});
afterAll(() => daemon.close());

/** A process that traces `count` invocations, the last killed on the next turn after it ends. */
const traceThenDie = (count: number) =>
  new Promise<number | null>((resolve) => {
    const script = `
      const { beginTrace, endTrace } = await import('./shared/observability/xray.ts');
      for (let i = 0; i < ${count}; i++) {
        process.env._X_AMZN_TRACE_ID = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';
        beginTrace();
        await endTrace({ status: 200 });
        if (i < ${count} - 1) await new Promise((next) => setTimeout(next, 20));
      }
      setImmediate(() => process.kill(process.pid, 'SIGKILL'));`;
    execFile(
      process.execPath,
      ['--input-type=module', '-e', script],
      {
        env: {
          PATH: process.env.PATH,
          POWERTOOLS_TRACE_ENABLED: 'true',
          AWS_XRAY_DAEMON_ADDRESS: daemon.address,
          _HANDLER: 'index.handler',
        },
      },
      (error) => resolve(error ? ((error as { signal?: string }).signal === 'SIGKILL' ? 9 : 1) : 0),
    );
  });

test('the first sampled invocation of a process: its document left before the process died', async () => {
  await daemon.take();
  expect(await traceThenDie(1)).toBe(9);
  expect(await daemon.take()).toHaveLength(1);
});

test('later invocations of the process: each document left before the next turn', async () => {
  await daemon.take();
  expect(await traceThenDie(3)).toBe(9);
  expect(await daemon.take()).toHaveLength(3);
});
