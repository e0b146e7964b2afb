// Runs a function's handler as Lambda would, in this process, at most its concurrency
// of invocations at once (concurrency.ts). Those run side by side, as in an execution
// environment with AWS_LAMBDA_MAX_CONCURRENCY set:
// Powertools then keeps each invocation's log keys and metrics in the InvokeStore,
// so concurrent requests never see each other's request id or key id.

import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { InvokeStore, InvokeStoreBase } from '@aws/lambda-invoke-store';
import type { Context } from 'aws-lambda';
import { FUNCTION_TIMEOUT_SECONDS } from '../stages.ts';
import { createConcurrencyLimit } from './concurrency.ts';

class FunctionTimeoutError extends Error {}

/**
 * Invocations of all functions that execute at once on this machine, whatever the functions'
 * emulated concurrency. Deployed, each of up to 1000 concurrent invocations has its own CPU;
 * here they share the machine's cores with the embedded DynamoDB, and a thousand at once only
 * made each DynamoDB call wait past its timeout (answered 503: test/e2e/load.test.ts holds the
 * deployed concurrency to no 5xx). Beyond these slots an invocation waits its turn: it counts against its
 * function's concurrency (Lambda's throttle stays as deployed), and its timeout starts when
 * it executes, as an invocation's does once its execution environment is ready.
 */
const MACHINE_SLOTS = 16;
const machine = createConcurrencyLimit('local machine', MACHINE_SLOTS, Number.POSITIVE_INFINITY);

export interface LocalFunction<E, R> {
  readonly name: string;
  /** `requestId`: the invocation's Lambda request id (its lines' function_request_id); a new one if not given. */
  invoke(event: E, requestId?: string): Promise<R>;
}

type Handler<E, R> = (event: E, context: Context) => Promise<R>;

/**
 * Must run before any function module is imported and before the process's first
 * AWS SDK call, as the runtime does before init: that call fixes the InvokeStore, and
 * one made earlier fixes a single-invocation store, whose request id every concurrent
 * invocation shares (log lines named another request's function_request_id).
 */
export const prepareRuntime = async (concurrency = 64): Promise<void> => {
  process.env.AWS_LAMBDA_MAX_CONCURRENCY ??= String(concurrency);
  // As Lambda sets it for on-demand functions: Powertools reports cold starts only then.
  process.env.AWS_LAMBDA_INITIALIZATION_TYPE ??= 'on-demand';
  const store = await InvokeStore.getInstanceAsync(true);
  if (store.constructor.name !== 'InvokeStoreMulti') {
    throw new Error('prepareRuntime must run before the first AWS SDK call of the process');
  }
};

/** Lambda's concurrency of one function, and how many invocations may wait for it. */
export interface FunctionConcurrency {
  limit: number;
  queue: number;
}

/** The context Lambda passes a handler; `deadline` is the epoch millisecond its time runs out. */
export const lambdaContext = (name: string, deadline: number, requestId: string = randomUUID()): Context => ({
  callbackWaitsForEmptyEventLoop: false,
  functionName: name,
  functionVersion: '$LATEST',
  invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${name}`,
  memoryLimitInMB: '1024',
  awsRequestId: requestId,
  logGroupName: `/aws/lambda/${name}`,
  logStreamName: 'local',
  getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
});

export const loadFunction = async <E, R>(
  name: string,
  entry: string,
  concurrency: FunctionConcurrency,
  timeoutMs = FUNCTION_TIMEOUT_SECONDS * 1000,
): Promise<LocalFunction<E, R>> => {
  const module = (await import(pathToFileURL(resolve(entry)).href)) as { handler: Handler<E, R> };
  const store = await InvokeStore.getInstanceAsync();
  const slots = createConcurrencyLimit(name, concurrency.limit, concurrency.queue);
  const invokeNow = (event: E, requestId?: string): Promise<R> => {
    const context = lambdaContext(name, Date.now() + timeoutMs, requestId);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new FunctionTimeoutError(`${name} timed out after ${timeoutMs} ms`)), timeoutMs);
    });
    const running = store.run({ [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: context.awsRequestId }, () =>
      module.handler(event, context),
    );
    return Promise.race([running, timedOut]).finally(() => clearTimeout(timer));
  };
  return {
    name,
    // The timeout starts when the invocation runs, not while it waits for a slot.
    invoke: (event, requestId) => slots.run(() => machine.run(() => invokeNow(event, requestId))),
  };
};
