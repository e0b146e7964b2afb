// The contract's 504 before Lambda's deadline, through the chains every function runs: a handler
// still running 5 ms before the time its context says is left is answered with GATEWAY_TIMEOUT
// (the authorizer's with a fault), however invocations follow one another or overlap, and an
// invocation that answered in time is never cut short by an earlier one's deadline. The 5 ms are
// middy's default `timeoutEarlyInMillis` (https://middy.js.org/docs/intro/early-interrupt), which
// the chains use.
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { authorizerHandler } from '../../shared/lambda/authorizer-handler.ts';
import { json } from '../../shared/lambda/http.ts';
import { httpHandler } from '../../shared/lambda/middleware.ts';
import { lambdaContext, proxyEvent, tokenEvent } from '../support/in-process.ts';
import { captureFunctionOutput } from '../support/observability.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * A context whose deadline is `ms` from its first reading (the chain's, as the handler starts), as
 * Lambda's counts down: so that invocations given the same time need the same timer, to the millisecond.
 */
const withTime = (ms: number): Context => {
  let deadline: number | undefined;
  return {
    ...lambdaContext('getPet'),
    getRemainingTimeInMillis: () => {
      deadline ??= Date.now() + ms;
      return Math.max(0, deadline - Date.now());
    },
  };
};

/** getPet's chain around a handler that takes `ms` to answer 200. */
const slow = httpHandler('getPet', async (event) => {
  await sleep(Number(event.pathParameters?.petId));
  return json(200, { ok: true });
});
/** Invokes it with `time` left and a handler taking `takes`: the status, and when it came. */
const invoke = async (time: number, takes: number) => {
  const started = performance.now();
  const context = withTime(time);
  const event = { ...proxyEvent({ path: `/v1/pets/${takes}` }), pathParameters: { petId: String(takes) } };
  const result: APIGatewayProxyResult = await slow(event, context);
  return { status: result.statusCode, ms: performance.now() - started, body: JSON.parse(result.body) };
};

/** What the chains write (a 504's ERROR line with its cause), kept off the test output. */
let output: ReturnType<typeof captureFunctionOutput>;
beforeEach(() => {
  output = captureFunctionOutput();
});
afterEach(() => vi.restoreAllMocks());

/**
 * Answered when the timer fired: with 5 ms left, not earlier (timers never fire early; a
 * millisecond's rounding aside), and well before the handler would have answered. A timer fires
 * late on a busy machine, and the 504's ERROR line takes its time: how late is not asserted.
 */
const expectTimedOut = ({ status, ms }: { status: number; ms: number }, time: number) => {
  expect(status).toBe(504);
  expect(ms).toBeGreaterThanOrEqual(time - 5 - 2);
  expect(ms).toBeLessThan(time + 200);
};

describe('the 504 before the deadline', () => {
  it('answers 504 5 ms before the deadline, not before, invocation after invocation', async () => {
    // Once untimed: the first fault's line makes the Logger and reads the source maps.
    expect((await invoke(50, 1_000)).status).toBe(504);
    output.clear();
    // The same time again (one timer re-armed), a millisecond more, less, then more.
    for (const time of [150, 150, 150, 151, 120, 180]) {
      const outcome = await invoke(time, 1_000);
      expectTimedOut(outcome, time);
      expect(outcome.body.code).toBe('GATEWAY_TIMEOUT');
    }
    const errors = output.lines().filter((line) => line.level === 'ERROR');
    expect(errors.map((line) => JSON.stringify(line).includes('"name":"TimeoutError"'))).toEqual(Array(6).fill(true));
  });

  it("an answer in time is never cut short by an earlier invocation's deadline", async () => {
    expect((await invoke(60, 0)).status).toBe(200);
    // The first one's deadline (55 ms from its start) passes while this one runs.
    const { status } = await invoke(400, 150);
    expect(status).toBe(200);
    expect((await invoke(60, 0)).status).toBe(200);
    await sleep(100);
    expect((await invoke(60, 0)).status).toBe(200);
  });

  it('invocations side by side (the local stage) each keep their own deadline', async () => {
    const [late, early, fine] = await Promise.all([invoke(250, 1_000), invoke(100, 1_000), invoke(400, 50)]);
    expect(fine.status).toBe(200);
    expectTimedOut(early, 100);
    expectTimedOut(late, 250);
  });

  it('an invocation that answered holds no timer that keeps the process running', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    // The earlier tests' handlers still sleep after their 504s (up to 1 s): one of their timers
    // firing during this invocation took the count below its start (CI on a loaded machine).
    await sleep(1_000);
    const before = timers();
    expect((await invoke(10_000, 0)).status).toBe(200);
    expect(timers()).toBe(before);
  });

  it('the authorizer: a decision still pending 5 ms before the deadline is a fault, not an answer', async () => {
    const authorize = authorizerHandler(async () => {
      await sleep(1_000);
      return { principalId: 'key_x', policyDocument: { Version: '2012-10-17', Statement: [] } };
    });
    const started = performance.now();
    const outcome = await authorize(tokenEvent('Bearer pet_x'), withTime(100)).catch((error: Error) => error);
    expect(outcome).toMatchObject({ name: 'TimeoutError' });
    const ms = performance.now() - started;
    expect(ms).toBeGreaterThanOrEqual(100 - 5 - 2);
    expect(ms).toBeLessThan(100 + 200);
  });
});
