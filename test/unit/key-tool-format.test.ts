// What the key tool reads (--expires, --overlap) and the RateLimit-Policy value the authorizer hands on.
import { describe, expect, test } from 'vitest';
import { rateLimitPolicy, rateLimitsEnv, rateLimitsFromEnv } from '../../shared/domain/api-keys.ts';
import { keyTable, listEntry, parseDuration, parseExpiry } from '../../tools/keys/format.ts';

const NOW = Date.parse('2026-11-24T08:00:00.000Z');

describe('durations and expiries', () => {
  test.each([
    ['45s', 45_000],
    ['30m', 1_800_000],
    ['24h', 86_400_000],
    ['90d', 90 * 86_400_000],
    ['2w', 14 * 86_400_000],
    ['0', 0],
    ['0s', 0],
  ])('%s is %d ms', (text, ms) => expect(parseDuration(text)).toBe(ms));

  test.each(['', '24', '1.5h', '-1d', '1y', 'a while', '24 h'])('%j is no duration', (text) =>
    expect(parseDuration(text)).toBeUndefined(),
  );

  test('an expiry is a duration from now, a day (00:00 UTC) or a date-time with its offset', () => {
    expect(parseExpiry('90d', NOW)?.toISOString()).toBe('2027-02-22T08:00:00.000Z');
    expect(parseExpiry('2027-03-01', NOW)?.toISOString()).toBe('2027-03-01T00:00:00.000Z');
    expect(parseExpiry('2027-03-01T12:30:00+02:00', NOW)?.toISOString()).toBe('2027-03-01T10:30:00.000Z');
    expect(parseExpiry('2027-03-01T12:30:00.250Z', NOW)?.toISOString()).toBe('2027-03-01T12:30:00.250Z');
  });

  test.each(['2027-02-30', '2027-13-01', '2027-03-01T12:30', '01/03/2027', 'tomorrow', '2027-3-1'])(
    '%j is no expiry (no rolling over, no local time)',
    (text) => expect(parseExpiry(text, NOW)).toBeUndefined(),
  );
});

describe('RateLimit-Policy', () => {
  test('names burst, steady rate and daily quota as the draft writes quota policies', () => {
    expect(rateLimitPolicy({ rateLimit: 50, burstLimit: 100, quotaPerDay: 2_000_000 })).toBe(
      '"burst";q=100;w=1, "steady";q=50;w=1, "daily";q=2000000;w=86400',
    );
    expect(rateLimitPolicy({ rateLimit: 20, burstLimit: 40 })).toBe('"burst";q=40;w=1, "steady";q=20;w=1');
  });

  test('a fractional rate becomes whole requests per minute (q is an integer)', () => {
    expect(rateLimitPolicy({ rateLimit: 0.5, burstLimit: 1 })).toBe('"burst";q=1;w=1, "steady";q=30;w=60');
  });

  test('travels to the authorizer through its environment, and is absent when the environment names none', () => {
    const limits = { rateLimit: 20, burstLimit: 40, quotaPerDay: 100_000 };
    expect(rateLimitsFromEnv(rateLimitsEnv(limits))).toEqual(limits);
    expect(rateLimitsFromEnv(rateLimitsEnv({ rateLimit: 1, burstLimit: 2 }))).toEqual({
      rateLimit: 1,
      burstLimit: 2,
      quotaPerDay: undefined,
    });
    expect(rateLimitsFromEnv({})).toBeUndefined();
  });
});

// A label, a user name or a reason is anyone's text, and `list` prints it on an operator's terminal:
// no control character (C0, DEL or C1: ESC, CSI) reaches it raw, or a label could clear the screen
// or rewrite the lines above it; each is shown as its escape instead.
describe('list prints no control character', () => {
  const record = {
    keyId: 'key_AbC123xYz0',
    keyHash: 'x',
    label: 'lab\u001b[2Jel\u009b31m',
    createdAt: '2026-11-24T08:00:00.000Z',
    changes: [{ action: 'created', at: '2026-11-24T08:00:00.000Z', by: 'ali\u0007ce', reason: 'why\u009d0;x\u0007' }],
  };
  const limits = { rateLimit: 1, burstLimit: 1, quotaPerDay: 1 };

  test('the table shows each as an escape', () => {
    const table = keyTable([listEntry(record as never, limits, 300, Date.parse('2026-11-25T00:00:00Z'))]);
    // Its rows' own newlines aside, no control character (\p{Cc}: C0, DEL and C1).
    expect(table.split('\n').join('')).not.toMatch(/\p{Cc}/u);
    expect(table).toContain('lab\\u001b[2Jel\\u009b31m');
    expect(table).toContain('by ali\\u0007ce');
    expect(table).toContain('why\\u009d0;x\\u0007');
  });
});
