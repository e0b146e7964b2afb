// The budget of request bodies being read (infra/local/body-budget.ts): a key past its share
// waits behind its own requests while other keys are served; what frees up goes to the keys in
// turn; and a request that leaves while it waits takes nobody's turn.
import { expect, test } from 'vitest';
import { type BodyHold, createBodyBudget } from '../../infra/local/body-budget.ts';

/** Lets settled turns run their continuations. */
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Whether each hold has its bytes yet: held at once, or its turn came. */
const heldSoFar = (holds: BodyHold[]) => {
  const held = holds.map((hold) => hold.turn === undefined);
  holds.forEach((hold, i) => void hold.turn?.then((wasHeld) => (held[i] = wasHeld)));
  return held;
};

test("a key past its share waits behind its own requests; another key's is held at once", async () => {
  const budget = createBodyBudget({ totalBytes: 100, keyShareBytes: 30 });
  const noisy = [10, 10, 10, 10].map((bytes) => budget.hold('noisy', bytes));
  expect(noisy.map((hold) => hold.turn === undefined)).toEqual([true, true, true, false]);
  expect(budget.hold('quiet', 30).turn).toBeUndefined();

  const held = heldSoFar(noisy);
  noisy[0]!.release();
  await tick();
  expect(held).toEqual([true, true, true, true]);
});

test('a key alone may hold one body larger than its share, never more', () => {
  const budget = createBodyBudget({ totalBytes: 100, keyShareBytes: 30 });
  expect(budget.hold('big', 50).turn).toBeUndefined();
  expect(budget.hold('big', 1).turn).toBeDefined();
});

test('a request that leaves while it waits takes no turn: the next one gets the bytes', async () => {
  const budget = createBodyBudget({ totalBytes: 100, keyShareBytes: 10 });
  const first = budget.hold('key', 10);
  const [leaving, staying] = [budget.hold('key', 10), budget.hold('key', 10)];
  const held = heldSoFar([leaving, staying]);
  leaving.release(); // its client left
  expect(await leaving.turn).toBe(false);
  first.release();
  await tick();
  expect(held).toEqual([false, true]);
  // What it never held, it does not give back: the key's share is still full with `staying`.
  leaving.release();
  expect(budget.hold('key', 10).turn).toBeDefined();
});

test('what frees up goes to the keys in turn, not to the longest line', async () => {
  const budget = createBodyBudget({ totalBytes: 30, keyShareBytes: 30 });
  const filler = budget.hold('filler', 30);
  const a = [budget.hold('a', 10), budget.hold('a', 10), budget.hold('a', 10)];
  const b = [budget.hold('b', 10)];
  const held = heldSoFar([...a, ...b]);
  filler.release();
  await tick();
  // 30 bytes free, 10 each: a, b, then a again.
  expect(held).toEqual([true, true, false, true]);
});

test('a newcomer does not pass a request waiting for the total, however small it is', async () => {
  const budget = createBodyBudget({ totalBytes: 30, keyShareBytes: 30 });
  const filler = budget.hold('filler', 25);
  const large = budget.hold('large', 20);
  expect(large.turn).toBeDefined();
  const small = budget.hold('small', 1);
  expect(small.turn).toBeDefined();
  const held = heldSoFar([large, small]);
  filler.release();
  await tick();
  expect(held).toEqual([true, true]);
});

test('keys at their share holding the whole budget: another key still gets its reserve at once, and no more', async () => {
  const budget = createBodyBudget({ totalBytes: 40, keyShareBytes: 20, keyReserveBytes: 10 });
  const stalling = ['a', 'b'].flatMap((key) => [budget.hold(key, 10), budget.hold(key, 10)]);
  expect(stalling.map((hold) => hold.turn === undefined)).toEqual([true, true, true, true]);
  // The total is full: a third stalling key gets its reserve, then waits for the total; a fourth
  // key's reserve passes it.
  expect(budget.hold('c', 10).turn).toBeUndefined();
  const waiting = budget.hold('c', 10);
  expect(waiting.turn).toBeDefined();
  const quiet = budget.hold('quiet', 5);
  expect(quiet.turn).toBeUndefined();
  expect(budget.hold('quiet', 5).turn).toBeUndefined();
  const past = budget.hold('quiet', 5);
  expect(past.turn).toBeDefined();
  // What frees up from the reserve goes to the reserve's own key first, not to the total's line.
  const held = heldSoFar([waiting, past]);
  quiet.release();
  await tick();
  expect(held).toEqual([false, true]);
});
