// A function's concurrency in the local stage (infra/local/concurrency.ts): at most
// `limit` invocations run, the next ones wait in arrival order, and past `queueLimit`
// waiting an invocation is refused at once.
import { expect, test } from 'vitest';
import { ConcurrencyLimitExceeded, createConcurrencyLimit } from '../../infra/local/concurrency.ts';

/** A piece of work that runs until released, recording when it started. */
const gate = (started: number[], id: number) => {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  const work = async () => {
    started.push(id);
    await done;
  };
  return { work, release: () => release() };
};

test('runs `limit` at once, starts the waiting ones in arrival order, refuses past the queue', async () => {
  const limit = createConcurrencyLimit('fn', 2, 2);
  const started: number[] = [];
  const gates = [1, 2, 3, 4, 5].map((id) => gate(started, id));
  const runs = gates.slice(0, 4).map(({ work }) => limit.run(work));
  await expect(limit.run(gates[4]!.work)).rejects.toBeInstanceOf(ConcurrencyLimitExceeded);
  await Promise.resolve();
  expect(started).toEqual([1, 2]);
  expect([limit.running, limit.waiting]).toEqual([2, 2]);

  gates[1]!.release();
  await runs[1];
  await new Promise((resolve) => setImmediate(resolve));
  expect(started).toEqual([1, 2, 3]);
  for (const { release } of gates) release();
  await Promise.all(runs);
  expect(started).toEqual([1, 2, 3, 4]);
  expect([limit.running, limit.waiting]).toEqual([0, 0]);
});

test('a failing invocation frees its slot too', async () => {
  const limit = createConcurrencyLimit('fn', 1, 1);
  await expect(limit.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  await expect(limit.run(async () => 'ran')).resolves.toBe('ran');
  expect(limit.running).toBe(0);
});
