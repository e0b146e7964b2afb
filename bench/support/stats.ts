// The machine a figure was measured on, the printed tables, the targets and the
// results files. Latencies in ms.
import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus, platform, release, totalmem } from 'node:os';

// Medians, ratios and turns live in tools/harness/rounds.ts, where its unit test reaches them.
export {
  ascending,
  type Generations,
  inTurns,
  type Pooled,
  percentile,
  pooledMedian,
  pooledRatios,
  ratios,
  round,
  type Spread,
  spread,
} from '../../tools/harness/rounds.ts';

import type { Spread } from '../../tools/harness/rounds.ts';

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
