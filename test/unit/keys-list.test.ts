// `keys list` on a key that has expired while its authorizer answer may still be cached (the
// cache window, docs/keys.md): it says so, until the window has passed.
import { expect, test } from 'vitest';
import type { KeyRecord } from '../../shared/domain/stores.ts';
import { keyTable, listEntry } from '../../tools/keys/format.ts';

const now = Date.parse('2026-11-26T12:00:00Z');
const limits = { rateLimit: 20, burstLimit: 40 };
/** Last used 11:57 by default: its authorizer answer may be cached. */
const key = (expiresAt: string, lastUsedAt: string | null = '2026-11-26T11:57:00.000Z'): KeyRecord => ({
  keyId: 'key_AbC123xYz0',
  label: 'billing',
  createdAt: '2026-11-01T00:00:00.000Z',
  expiresAt,
  ...(lastUsedAt && { lastUsedAt }),
});

test('an expired key within the cache TTL may still be accepted, and the list says until when', () => {
  const entry = listEntry(key('2026-11-26T11:58:00.000Z'), limits, 300, now);
  expect(entry).toMatchObject({ state: 'expired', mayBeAcceptedUntil: '2026-11-26T12:03:00.000Z' });
  expect(keyTable([entry])).toContain('expired (cached: may be accepted until 2026-11-26 12:03Z)');
});

test('past the cache TTL, or not expired, it says no more than its state', () => {
  const past = listEntry(key('2026-11-26T11:54:00.000Z'), limits, 300, now);
  expect(past).toMatchObject({ state: 'expired', mayBeAcceptedUntil: null });
  expect(keyTable([past])).not.toContain('may be accepted');
  expect(listEntry(key('2026-11-26T12:01:00.000Z'), limits, 300, now)).toMatchObject({
    state: 'active',
    mayBeAcceptedUntil: null,
  });
});

test('a key never used has no cached answer; one last used long before its expiry, only until that answer ran out', () => {
  const never = listEntry(key('2026-11-26T11:58:00.000Z', null), limits, 300, now);
  expect(never).toMatchObject({ state: 'expired', mayBeAcceptedUntil: null });
  expect(keyTable([never])).not.toContain('may be accepted');
  // Recorded 11:50: accepted again at most until 11:55 (no record in between), so cached at most until 12:00.
  expect(listEntry(key('2026-11-26T11:59:00.000Z', '2026-11-26T11:50:00.000Z'), limits, 300, now)).toMatchObject({
    mayBeAcceptedUntil: null,
  });
  expect(
    listEntry(key('2026-11-26T11:59:00.000Z', '2026-11-26T11:51:00.000Z'), limits, 300, now).mayBeAcceptedUntil,
  ).toBe('2026-11-26T12:01:00.000Z');
});
