// The timestamp of every summary line: the very text Date's toISOString writes (ECMA-262's Date
// Time String Format, https://tc39.es/ecma262/#sec-date-time-string-format), which is what
// Powertools Logger writes, whichever millisecond, second, day or year it is.
import { describe, expect, it } from 'vitest';
import { isoNow } from '../../shared/observability/clock.ts';

const iso = (ms: number) => new Date(ms).toISOString();

describe('isoNow', () => {
  it('writes what toISOString writes, across seconds, days, leap days and years, in any order', () => {
    const moments = [
      0,
      1,
      999,
      1000,
      59_999,
      60_000,
      Date.UTC(2024, 1, 29, 23, 59, 59, 999),
      Date.UTC(2024, 2, 1, 0, 0, 0, 0),
      Date.UTC(2026, 10, 29, 10, 0, 0, 7),
      Date.UTC(2026, 10, 29, 10, 0, 0, 70),
      Date.UTC(2026, 10, 29, 10, 0, 1, 70),
      Date.UTC(1999, 11, 31, 23, 59, 59, 999),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(10000, 0, 1),
      -1,
      -86_400_001,
    ];
    for (let i = 0; i < 5_000; i++) moments.push(Math.floor(Math.random() * Date.UTC(2100, 0)));
    const now = Date.now();
    for (let ms = now; ms < now + 3_000; ms++) moments.push(ms);
    for (const ms of [...moments, ...moments.reverse()]) expect(isoNow(ms), String(ms)).toBe(iso(ms));
  });

  it('is now by default', () => {
    const before = Date.now();
    const written = Date.parse(isoNow());
    expect(written).toBeGreaterThanOrEqual(before);
    expect(written).toBeLessThanOrEqual(Date.now());
  });
});
