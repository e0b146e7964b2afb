// Percentiles, the machine a figure was measured on, the printed tables, the targets and the
// results files. Latencies in ms.
import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus, platform, release, totalmem } from 'node:os';

/** The p-th percentile (0–100) by nearest rank: a value that was actually measured. */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;

export const ascending = (a: number, b: number) => a - b;
export const median = (values: readonly number[]): number => percentile(values.toSorted(ascending), 50);

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
 * Each side's turn, round after round, each side first in turn, so that drift on a noisy machine
 * (other processes, compactions, JIT) lands on all alike; per side, its turns in round order.
 */
export const inTurns = async <T>(sides: number, rounds: number, turn: (side: number) => Promise<T>) => {
  const turns: T[][] = Array.from({ length: sides }, () => []);
  for (let r = 0; r < rounds; r++)
    for (let i = 0; i < sides; i++) turns[(i + r) % sides]!.push(await turn((i + r) % sides));
  return turns;
};

/** Figures mean little without the machine. */
const m = {
  nproc: availableParallelism(),
  cpu: cpus()[0]?.model.trim() ?? 'unknown',
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  os: `${platform()} ${release()}`,
};
export const machine = { ...m, description: `${m.nproc} × ${m.cpu}, ${m.memoryGiB} GiB, Node ${m.node}, ${m.os}` };

/** A plain text table: the first row is the header; numbers are right-aligned, spreads `median (min–max)`. */
export const table = (rows: ReadonlyArray<ReadonlyArray<string | number | Spread>>): string => {
  const text = (f: string | number | Spread) =>
    typeof f !== 'object' ? String(f) : f.min === f.max ? `${f.median}` : `${f.median} (${f.min}–${f.max})`;
  const cells = rows.map((row) => row.map(text));
  const widths = cells[0]!.map((_, c) => Math.max(...cells.map((row) => (row[c] ?? '').length)));
  const pad = (cell: string, r: number, c: number) =>
    typeof rows[r]![c] === 'number' ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!);
  const lines = cells.map((row, r) => row.map((cell, c) => pad(cell, r, c)).join('  '));
  // Without the padding after each line's last cell.
  return [lines[0], widths.map((w) => '-'.repeat(w)).join('  '), ...lines.slice(1)].join('\n').replace(/ +$/gm, '');
};

/** Counts by key as `200×59 201×63`. */
export const counts = (byKey: Record<string, number>) =>
  Object.entries(byKey)
    .map(([key, n]) => `${key}×${n}`)
    .join(' ');

/** A table's row: the fields of `row` that `keys` names (space-separated), in that order. */
export const cells = (row: object, keys: string) =>
  keys.split(' ').map((key) => (row as Record<string, string | number | Spread>)[key]!);

export type Target = { figure: string; measured: number } & ({ atMost: number } | { atLeast: number });
export const atMost = (figure: string, measured: number, atMost: number): Target => ({ figure, measured, atMost });
export const atLeast = (figure: string, measured: number, atLeast: number): Target => ({ figure, measured, atLeast });

/** Prints each figure against its target; returns them with their verdicts, for the results file. */
export const printTargets = (targets: readonly Target[]) => {
  const checks = targets.map(({ figure, measured, ...limit }) =>
    'atMost' in limit
      ? { figure, target: `≤ ${limit.atMost}`, measured, met: measured <= limit.atMost }
      : { figure, target: `≥ ${limit.atLeast}`, measured, met: measured >= limit.atLeast },
  );
  const rows = checks.map((t) => [t.figure, t.target, t.measured, t.met ? 'met' : 'MISSED']);
  console.log(`\nTargets:\n${table([['figure', 'target', 'measured', ''], ...rows])}`);
  return checks;
};

/** Writes `bench/<file>` with the time and the machine, and says so. */
export const writeResults = (file: string, results: object) => {
  const stamped = { measuredAt: new Date().toISOString(), machine, ...results };
  writeFileSync(new URL(`../${file}`, import.meta.url), `${JSON.stringify(stamped, null, 2)}\n`);
  console.log(`\nwrote bench/${file}`);
};
