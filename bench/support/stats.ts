// Percentiles and the printed table. Latencies are in milliseconds.

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

export interface LatencySummary {
  requests: number;
  p50: number;
  p99: number;
  requestsPerSecond: number;
}

export const summarize = (latencies: readonly number[], elapsedMs: number): LatencySummary => {
  const sorted = Float64Array.from(latencies).sort();
  return {
    requests: latencies.length,
    p50: round(percentile(sorted as unknown as number[], 50)),
    p99: round(percentile(sorted as unknown as number[], 99)),
    requestsPerSecond: Math.round((latencies.length / elapsedMs) * 1000),
  };
};

export const round = (value: number, digits = 2): number => {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
};

export const ratio = (value: number, reference: number): number => round(value / reference, 2);

/** A plain text table: the first row is the header; numbers are right-aligned. */
export const table = (rows: ReadonlyArray<ReadonlyArray<string | number>>): string => {
  const cells = rows.map((row) => row.map(String));
  const widths = cells[0]!.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  const line = (row: string[], index: number) =>
    row
      .map((cell, column) =>
        index > 0 && typeof rows[index]![column] === 'number'
          ? cell.padStart(widths[column]!)
          : cell.padEnd(widths[column]!),
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

/** `✓` or `✗ (by how much)`: a target check for the printed table. */
export const verdict = (ok: boolean): string => (ok ? 'met' : 'MISSED');
