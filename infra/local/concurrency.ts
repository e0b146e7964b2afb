// A function's concurrency, as Lambda has it: at most `limit` invocations of one
// function run at once; the rest wait their turn, first come first served, up to
// `queueLimit` waiting, beyond which the invocation is throttled. Without it every
// request of a burst ran at once and the embedded DynamoDB, sharing this process's
// CPU, answered too late: 500 simultaneous requests got hundreds of 503s.

/** The invocation was refused: `queueLimit` invocations were already waiting. */
export class ConcurrencyLimitExceeded extends Error {
  constructor(name: string) {
    super(`${name}: too many invocations waiting`);
  }
}

export interface ConcurrencyLimit {
  /** Runs `work` when a slot is free; rejects with ConcurrencyLimitExceeded when the queue is full. */
  run<T>(work: () => Promise<T>): Promise<T>;
  readonly running: number;
  readonly waiting: number;
}

export const createConcurrencyLimit = (name: string, limit: number, queueLimit: number): ConcurrencyLimit => {
  let running = 0;
  const queue: Array<() => void> = [];
  const release = () => {
    const next = queue.shift();
    if (next)
      next(); // the slot passes straight to the next in line
    else running--;
  };
  return {
    get running() {
      return running;
    },
    get waiting() {
      return queue.length;
    },
    async run(work) {
      if (running < limit) running++;
      else if (queue.length >= queueLimit) throw new ConcurrencyLimitExceeded(name);
      else await new Promise<void>((resolve) => queue.push(resolve));
      try {
        return await work();
      } finally {
        release();
      }
    },
  };
};
