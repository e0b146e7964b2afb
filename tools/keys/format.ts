// What the key tool reads and prints: `--expires` and `--overlap` as dates or durations,
// and `list` as an aligned table (or JSON, for scripts).

import type { KeyLimits } from '../../infra/stages.ts';
import { escapeControlCharacters } from '../../shared/api/control-characters.ts';
import { isExpired, type KeyScope, LAST_USE_RESOLUTION_MS } from '../../shared/domain/api-keys.ts';
import type { KeyChange, KeyRecord } from '../../shared/domain/stores.ts';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** `90d`, `24h`, `30m`, `45s`, `2w` (or `0`) in milliseconds; undefined when it is not one. */
export const parseDuration = (text: string): number | undefined => {
  if (text.trim() === '0') return 0;
  const match = /^(\d{1,6})([smhdw])$/.exec(text.trim());
  return match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : undefined;
};

/**
 * `--expires`: a duration from now (`90d`) or a date (`2027-03-01`, 00:00 UTC that day) or
 * date-time with its offset (`2027-03-01T12:00:00Z`); undefined when it is none of these.
 */
export const parseExpiry = (text: string, now = Date.now()): Date | undefined => {
  const duration = parseDuration(text);
  if (duration !== undefined) return new Date(now + duration);
  const trimmed = text.trim();
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(trimmed)) return undefined;
  const date = new Date(trimmed.length === 10 ? `${trimmed}T00:00:00Z` : trimmed);
  // `2027-02-30` parses to nothing here; reject it rather than roll it over.
  if (Number.isNaN(date.getTime()) || (trimmed.length === 10 && date.toISOString().slice(0, 10) !== trimmed))
    return undefined;
  return date;
};

/** `20/s, burst 40, 100000/day`: what each key of the stage may do. */
export const describeLimits = ({ rateLimit, burstLimit, quotaPerDay }: KeyLimits): string =>
  `${rateLimit}/s, burst ${burstLimit}${quotaPerDay === undefined ? '' : `, ${quotaPerDay}/day`}`;

export type KeyState = 'active' | 'expired' | 'revoked';

export const stateOf = (record: KeyRecord, now = Date.now()): KeyState =>
  record.revokedAt !== undefined ? 'revoked' : isExpired(record.expiresAt, now) ? 'expired' : 'active';

/**
 * When an expired key may still be accepted: an answer cached before it expired lasts the
 * authorizer cache's TTL (docs/keys.md, "The cache window"). Only a key the authorizer accepted
 * has such an answer, and the authorizer records an acceptance at most once per
 * LAST_USE_RESOLUTION_MS: the last one came before min(expiry, last use + that), and its answer
 * lasts the TTL past it. Null once that has passed, for a key never used (no answer to cache),
 * for a key not expired, or revoked (a revoke flushes the cache). A use whose record failed (the
 * authorizer logs it and lets the key in) is not seen here.
 */
const acceptedUntil = (record: KeyRecord, state: KeyState, cacheTtlSeconds: number, now: number): string | null => {
  if (state !== 'expired' || !record.expiresAt || !record.lastUsedAt) return null;
  const lastAccepted = Math.min(Date.parse(record.expiresAt), Date.parse(record.lastUsedAt) + LAST_USE_RESOLUTION_MS);
  const until = lastAccepted + cacheTtlSeconds * 1000;
  return until > now ? new Date(until).toISOString() : null;
};

/** A key as `list --json` prints it: every field present, the scope of a key from before scopes included. */
export const listEntry = (record: KeyRecord, limits: KeyLimits, cacheTtlSeconds: number, now = Date.now()) => {
  const state = stateOf(record, now);
  return {
    keyId: record.keyId,
    label: record.label,
    scope: (record.scope ?? 'write') satisfies KeyScope,
    state,
    createdAt: record.createdAt,
    expiresAt: record.expiresAt ?? null,
    /** Expired, but a cached answer may still accept it until then. */
    mayBeAcceptedUntil: acceptedUntil(record, state, cacheTtlSeconds, now),
    revokedAt: record.revokedAt ?? null,
    lastUsedAt: record.lastUsedAt ?? null,
    rotatedFrom: record.rotatedFrom ?? null,
    rotatedTo: record.rotatedTo ?? null,
    limits: state === 'active' ? limits : null,
    /** Who made its last change (created, rotated or revoked), when and why; null when none was recorded. */
    lastChange: record.changes?.at(-1) ?? null,
    /** Every recorded change, oldest first. */
    changes: record.changes ?? [],
  };
};

/** `2026-11-24 08:13Z`: to the minute, in UTC, as wide as every other. */
const minute = (iso: string | null): string => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}Z` : '-');

/** `revoked 2026-11-24 08:13Z by alice: "leaked in a CI log"`. */
const describeChange = ({ action, at, by, reason }: KeyChange): string =>
  escapeControlCharacters(
    `${action} ${minute(at)} by ${by}${reason === undefined ? '' : `: ${JSON.stringify(reason)}`}`,
  );

/** The rows of `list`, as a table whose columns line up (no quoting, no index column). */
export const keyTable = (entries: ReturnType<typeof listEntry>[]): string => {
  const header = [
    'KEY ID',
    'LABEL',
    'SCOPE',
    'STATE',
    'CREATED',
    'EXPIRES',
    'LAST USED',
    'ROTATION',
    'LIMITS',
    'LAST CHANGE',
  ];
  const rows = entries.map((e) => [
    e.keyId,
    escapeControlCharacters(e.label), // anyone's text, on an operator's terminal: no escape sequence raw
    e.scope,
    e.state === 'revoked'
      ? `revoked ${minute(e.revokedAt)}`
      : e.mayBeAcceptedUntil
        ? `expired (cached: may be accepted until ${minute(e.mayBeAcceptedUntil)})`
        : e.state,
    minute(e.createdAt),
    minute(e.expiresAt),
    e.lastUsedAt ? minute(e.lastUsedAt) : 'never',
    [e.rotatedFrom && `from ${e.rotatedFrom}`, e.rotatedTo && `to ${e.rotatedTo}`].filter(Boolean).join(', ') || '-',
    e.limits ? describeLimits(e.limits) : '-',
    e.lastChange ? describeChange(e.lastChange) : '-',
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  return [header, ...rows]
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
};
