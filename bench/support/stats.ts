// Percentiles, the machine a figure was measured on, and the printed tables. Latencies in ms.
import { availableParallelism, cpus, platform, release, totalmem } from 'node:os';

/** The p-th percentile (0–100) by nearest rank: a value that was actually measured. */
export const percentile = (sorted: readonly number[], p: number): number => {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
};

export const median = (values: readonly number[]): number =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

export const round = (value: number, digits = 2): number => Math.round(value * 10 ** digits) / 10 ** digits;

export const ratio = (value: number, reference: number): number => round(value / reference, 2);

/** Figures mean little without the machine. */
const m = {
  nproc: availableParallelism(),
  cpu: cpus()[0]?.model.trim() ?? 'unknown',
  memoryGiB: Math.round(totalmem() / 2 ** 30),
};
export const machine = {
  ...m,
  node: process.version,
  os: `${platform()} ${release()}`,
  description: `${m.nproc} × ${m.cpu}, ${m.memoryGiB} GiB, Node ${process.version}, ${platform()} ${release()}`,
};

/** A plain text table: the first row is the header; numbers are right-aligned. */
export const table = (rows: ReadonlyArray<ReadonlyArray<string | number>>): string => {
  const cells = rows.map((row) => row.map(String));
  const widths = cells[0]!.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  const line = (row: string[], index: number) =>
    row
      .map((cell, c) =>
        index > 0 && typeof rows[index]![c] === 'number' ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!),
      )
      .join('  ')
      .trimEnd();
  const [header, ...body] = cells;
  return [
    line(header!, 0),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...body.map((row, i) => line(row, i + 1)),
  ].join('\n');
};

export type Target = { figure: string; measured: number } & ({ atMost: number } | { atLeast: number });

export const atMost = (figure: string, measured: number, limit: number): Target => ({
  figure,
  measured,
  atMost: limit,
});
export const atLeast = (figure: string, measured: number, limit: number): Target => ({
  figure,
  measured,
  atLeast: limit,
});

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

/** A table's row: the fields of `row` that `keys` names (space-separated), in that order. */
export const cells = (row: object, keys: string) =>
  keys.split(' ').map((key) => (row as Record<string, string | number>)[key]!);
