// The early timeout that makes a function answer the contract's 504 before Lambda's deadline:
// the handler's promise raced against a timer `EARLY_MS` before the time the context says is
// left, which rejects with middy's TimeoutError (middleware.ts turns it into GatewayTimeoutError).
//
// Why not middy's own (`timeoutEarlyInMillis`, which the chains set to 0): per invocation it made
// a timer (a Timeout, and the timer list of its duration, emptied and made again each time), a
// second promise and its closures, and a Promise.race over both; here an invocation re-arms one
// timer kept for the container (`refresh`: no allocation, the list kept) and settles one promise.
// What that saves, and why it stays: docs/performance.md, "Hand-made pieces and the figures that
// keep them".
//
// Deployed, an execution environment runs one invocation at a time, so one timer serves them all;
// the local stage runs invocations side by side in one process, and an invocation that finds the
// shared timer taken gets one of its own, as middy gave it. The shared timer fires when middy's
// would or at most a millisecond before (armShared), never later.
import type { Context } from 'aws-lambda';

/** How long before Lambda's deadline the function gives up: middy's default, which the chains had. */
const EARLY_MS = 5;

/** As middy's timeoutEarlyResponse throws it: middleware.ts answers any error so named with the 504. */
const timeoutError = (): Error => {
  const error = new Error('[AbortError]: The operation was aborted.', { cause: { package: '@middy/core' } });
  error.name = 'TimeoutError';
  return error;
};

/** The container's timer, its delay, and what it does when it fires: fail the invocation holding it, if any. */
let shared: NodeJS.Timeout | undefined;
let sharedDelay = Number.NaN;
let holder: ((error: Error) => void) | undefined;
const expire = () => {
  const fail = holder;
  holder = undefined;
  fail?.(timeoutError());
};

/**
 * Arms the shared timer to fire within `delay` ms: re-armed when its own delay is that one or a
 * millisecond less (Lambda's remaining time, read a moment after the deadline was set, moves by
 * a millisecond or so from one invocation to the next), made anew otherwise.
 */
const armShared = (delay: number): void => {
  if (shared !== undefined && (delay === sharedDelay || delay === sharedDelay + 1)) {
    shared.refresh().ref();
    return;
  }
  if (shared !== undefined) clearTimeout(shared);
  shared = setTimeout(expire, delay);
  sharedDelay = delay;
};

type Handler<E, R> = (event: E, context: Context) => Promise<R>;

/**
 * `handler`, answered by its own result or, `EARLY_MS` before the time `context` says is left,
 * by a rejection with a TimeoutError. Without getRemainingTimeInMillis (not Lambda's context), as is.
 */
export const withDeadline =
  <E, R>(handler: Handler<E, R>): Handler<E, R> =>
  (event, context) => {
    if (typeof context.getRemainingTimeInMillis !== 'function') return handler(event, context);
    const delay = Math.max(0, context.getRemainingTimeInMillis() - EARLY_MS);
    return new Promise<R>((resolve, reject) => {
      let own: NodeJS.Timeout | undefined;
      if (holder === undefined) {
        holder = reject;
        armShared(delay);
      } else own = setTimeout(() => reject(timeoutError()), delay);
      const done = () => {
        if (own !== undefined) clearTimeout(own);
        else if (holder === reject) {
          holder = undefined;
          // Left armed for the next invocation, but holding the process open for nothing.
          shared!.unref();
        }
      };
      let answer: Promise<R>;
      try {
        answer = handler(event, context);
      } catch (error) {
        done();
        throw error;
      }
      answer.then(
        (result) => {
          done();
          resolve(result);
        },
        (error: unknown) => {
          done();
          reject(error);
        },
      );
    });
  };
