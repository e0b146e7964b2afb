// `keys list` on a key that has expired while its authorizer answer may still be cached (the
// cache window, docs/keys.md): it says so, until the window has passed.
import { expect, test } from 'vitest';
import type { KeyRecord } from '../../shared/domain/stores.ts';
import { keyTable, listEntry } from '../../tools/keys/format.ts';

const now = Date.parse('2026-11-26T12:00:00Z');
const limits = { rateLimit: 20, burstLimit: 40 };
const key = (expiresAt: string): KeyRecord => ({
  keyId: 'key_AbC123xYz0',
  label: 'billing',
  createdAt: '2026-11-01T00:00:00.000Z',
  expiresAt,
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
