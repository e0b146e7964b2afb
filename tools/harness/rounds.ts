// Figures over rounds taken in turns, for the benchmarks (bench/support/stats.ts re-exports them):
// percentiles, medians, ratios round by round, and the pooling of several generations (a fresh
// process per side each) that bench:handlers needs, so that one process's luck (when V8 tiers up,
// collects, lays memory out) is one sample among several. Here rather than in bench/ so that its
// unit test can reach it (test/ imports no bench code: test/unit/architecture.test.ts).

/** The p-th percentile (0–100) by nearest rank: a value that was actually measured. */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;

export const ascending = (a: number, b: number) => a - b;
/** By nearest rank: of an even count, the lower of the two middle values. */
const median = (values: readonly number[]): number => percentile(values.toSorted(ascending), 50);

export const round = (value: number, digits = 2): number => Math.round(value * 10 ** digits) / 10 ** digits;

const ratio = (value: number, reference: number): number => round(value / reference, 2);

/** A figure over rounds: median (min–max), each a value measured. */
export const spread = (values: number[]) => {
  const [min, max] = [Math.min(...values), Math.max(...values)];
  return { median: median(values), min, max };
};
export type Spread = ReturnType<typeof spread>;
/** A figure of `turns` ÷ the same of `reference`'s, round by round, over the rounds. */
export const ratios = <T>(turns: T[], reference: T[], figure: (turn: T) => number) =>
  spread(turns.map((t, r) => ratio(figure(t), figure(reference[r]!))));

/**
 * Each side's turn, round after round, each side first in turn (from side `first` on), so that
 * drift on a noisy machine (other processes, compactions, JIT) lands on all alike; per side, its
 * turns in round order.
 */
export const inTurns = async <T>(
  sides: number,
  rounds: number,
  turn: (side: number) => Promise<T>,
  first = 0,
): Promise<T[][]> => {
  const turns: T[][] = Array.from({ length: sides }, () => []);
  for (let r = 0; r < rounds; r++)
    for (let i = 0; i < sides; i++) {
      const side = (i + r + first) % sides;
      turns[side]!.push(await turn(side));
    }
  return turns;
};

/** Per generation (a fresh process per side), per side, its turns in round order. */
export type Generations<T> = T[][][];

/**
 * A ratio over generations: `median` over every round of every generation, pooled (the figure a
 * target judges); `min`–`max` the range of the generations' own medians, which is the spread
 * between processes; `rounds` the range of all rounds' ratios; `generations` each one's median.
 */
export type Pooled = Spread & { rounds: { min: number; max: number }; generations: number[] };

/** `figure` of side `side` ÷ the same of side `reference`, round by round within each generation, pooled. */
export const pooledRatios = <T>(
  generations: Generations<T>,
  side: number,
  reference: number,
  figure: (turn: T) => number,
): Pooled => {
  const byGeneration = generations.map((sides) =>
    sides[side]!.map((turn, r) => ratio(figure(turn), figure(sides[reference]![r]!))),
  );
  const medians = byGeneration.map((values) => median(values));
  const all = byGeneration.flat();
  return {
    median: median(all),
    min: Math.min(...medians),
    max: Math.max(...medians),
    rounds: { min: Math.min(...all), max: Math.max(...all) },
    generations: medians,
  };
};

/** A side's `figure`, median over every round of every generation. */
export const pooledMedian = <T>(generations: Generations<T>, side: number, figure: (turn: T) => number): number =>
  median(generations.flatMap((sides) => sides[side]!.map(figure)));
