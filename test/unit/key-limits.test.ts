// The local usage plan's daily quota: counted per key, starting over at 00:00 UTC as a
// usage plan's DAY quota does (the rate and burst are checked over HTTP in e2e/key-limits).
import { expect, test } from 'vitest';
import { createKeyLimiter } from '../../infra/local/key-limits.ts';

test('a quota is per key and per UTC day; a request without an API key is INVALID_API_KEY', () => {
  let now = Date.parse('2026-11-23T23:59:58Z');
  const limiter = createKeyLimiter({ rateLimit: 1000, burstLimit: 1000, quotaPerDay: 2 }, () => now);
  expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([undefined, undefined, 'QUOTA_EXCEEDED']);
  expect(limiter.take('b')).toBeUndefined();
  now = Date.parse('2026-11-24T00:00:00Z');
  expect(limiter.take('a')).toBeUndefined();
  expect(limiter.take(undefined)).toBe('INVALID_API_KEY');
  expect(createKeyLimiter(undefined).take(undefined)).toBe('INVALID_API_KEY');
  expect(createKeyLimiter(undefined).take('a')).toBeUndefined();
});
