// The pooling of bench:handlers' generations (tools/harness/rounds.ts): a row's ratio is the median
// over every round of every generation (a fresh process per side each), its range the generations'
// own medians. The turns below are written by hand and every expected figure worked out by hand
// from them, so that taking one generation, the median of the generations' medians, or pairing a
// round with another generation's floor each gives another answer.
import { describe, expect, test } from 'vitest';
import { type Generations, inTurns, pooledMedian, pooledRatios } from '../../tools/harness/rounds.ts';

const [FLOOR, FUNCTION] = [0, 1];
const cpu = (turn: { cpu: number }) => turn.cpu;
const turns = (...values: number[]) => values.map((value) => ({ cpu: value }));

// Per generation: the floor's rounds, then the function's. The function's CPU is the floor's
// times these ratios, round by round:
//   generation 1: 1.00 1.01 1.02  (median 1.01)
//   generation 2: 1.03 1.20 1.21  (median 1.20)
//   generation 3: 1.04 1.05 1.30  (median 1.05)
// All nine in order: 1.00 1.01 1.02 1.03 1.04 1.05 1.20 1.21 1.30, the fifth 1.04: the pooled
// median. The generations' medians range 1.01–1.20; their own median is 1.05, the first
// generation's 1.01, the last's 1.05, the mean of all nine 1.0956: none is 1.04.
const GENERATIONS: Generations<{ cpu: number }> = [
  [turns(1.0, 0.8, 0.5), turns(1.0, 0.808, 0.51)],
  [turns(0.5, 0.5, 0.4), turns(0.515, 0.6, 0.484)],
  [turns(0.3, 0.2, 0.3), turns(0.312, 0.21, 0.39)],
];

describe('pooled over generations', () => {
  test('the ratio is the median of every round of every generation, its range the generations’ medians', () => {
    expect(pooledRatios(GENERATIONS, FUNCTION, FLOOR, cpu)).toEqual({
      median: 1.04,
      min: 1.01,
      max: 1.2,
      rounds: { min: 1.0, max: 1.3 },
      generations: [1.01, 1.2, 1.05],
    });
  });

  test('a side’s figure is its median over every round of every generation', () => {
    // The function: 0.21 0.312 0.39 0.484 0.51 0.515 0.6 0.808 1.0, the fifth 0.51 (the
    // generations' medians 0.808, 0.515 and 0.312); the floor: 0.2 0.3 0.3 0.4 0.5 0.5 0.5 0.8 1.0,
    // the fifth 0.5 (the first generation's 0.8).
    expect(pooledMedian(GENERATIONS, FUNCTION, cpu)).toBe(0.51);
    expect(pooledMedian(GENERATIONS, FLOOR, cpu)).toBe(0.5);
  });

  test('one generation: its rounds’ median, its range that median alone', () => {
    expect(pooledRatios(GENERATIONS.slice(1, 2), FUNCTION, FLOOR, cpu)).toMatchObject({
      median: 1.2,
      min: 1.2,
      max: 1.2,
      rounds: { min: 1.03, max: 1.21 },
    });
  });
});

test('each generation’s rounds begin with the side it names, each round with the next side', async () => {
  const order: number[] = [];
  const sides = await inTurns(
    3,
    2,
    async (side) => {
      order.push(side);
      return order.length;
    },
    1,
  );
  // Round 1: sides 1, 2, 0; round 2: sides 2, 0, 1. Each side's turns in round order.
  expect(order).toEqual([1, 2, 0, 2, 0, 1]);
  expect(sides).toEqual([
    [3, 5],
    [1, 6],
    [2, 4],
  ]);
});
