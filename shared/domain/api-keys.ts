// API keys: `pet_` + 43 base62 characters (256 bits), stored only as SHA-256.
import { createHash, randomInt } from 'node:crypto';
import type { KeyScope } from '../api/routes.ts';

export { KEY_SCOPES, type KeyScope } from '../api/routes.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_RANDOM_CHARS = 43; // 43 × log2(62) ≈ 256 bits
const KEY_ID_RANDOM_CHARS = 10;
const USAGE_KEY_RANDOM_CHARS = 40; // API Gateway wants an API key value of at least 20 characters

export const KEY_PATTERN = /^pet_[0-9A-Za-z]{32,}$/;

/**
 * The `Authorization` values worth asking the authorizer about: `Bearer <key>` with the
 * scheme in any case. API Gateway applies it as the authorizer's identity validation
 * expression and the local server does the same, so both refuse the rest with a 401
 * without invoking the function. Plain character classes: read alike by Java and JS.
 */
export const AUTHORIZATION_PATTERN = '^[Bb][Ee][Aa][Rr][Ee][Rr] +pet_[0-9A-Za-z]{32,}$';
const authorization = new RegExp(AUTHORIZATION_PATTERN);

// randomInt draws without modulo bias.
const randomBase62 = (length: number) => Array.from({ length }, () => BASE62[randomInt(BASE62.length)]).join('');

export const generateKey = (): string => `pet_${randomBase62(KEY_RANDOM_CHARS)}`;

/** The short, non-secret name of a key, written in logs and metrics instead of the key. */
export const generateKeyId = (): string => `key_${randomBase62(KEY_ID_RANDOM_CHARS)}`;

/**
 * The key's usage identifier: the value of its API Gateway API key, which the authorizer
 * returns as usageIdentifierKey so that the key's usage plan limits apply. A separate
 * random value, never the bearer key, which API Gateway would then store and show.
 */
export const generateUsageKey = (): string => randomBase62(USAGE_KEY_RANDOM_CHARS);

export const hashKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

/** The key of an `Authorization: Bearer <key>` header value, or undefined when it is anything else. */
export const bearerKey = (header: string | undefined): string | undefined => {
  if (header === undefined || !authorization.test(header)) return undefined;
  return header.slice('bearer'.length).trim();
};

/** A key issued before scopes existed has none stored and is `write` (shared/api/routes.ts: KEY_SCOPES). */
export const DEFAULT_KEY_SCOPE: KeyScope = 'write';

/**
 * How stale a key's recorded last use may be: the authorizer records a use only when the
 * stored one is older than this, and runs once per key per cache TTL (deployed 300 s), so
 * `keys list` is right to within this, at one write per key per 5 minutes at most.
 */
export const LAST_USE_RESOLUTION_MS = 300_000;

/** Whether a key with this expiry (ISO 8601) is expired at `now`. */
export const isExpired = (expiresAt: string | undefined, now = Date.now()): boolean =>
  expiresAt !== undefined && Date.parse(expiresAt) <= now;

/** A key's limits: its usage plan's, deployed; the local stage's PETSTORE_KEY_* variables locally. */
export interface RateLimits {
  /** Steady requests per second, and the bucket that absorbs bursts. */
  readonly rateLimit: number;
  readonly burstLimit: number;
  /** Requests per UTC day; undefined: no quota. */
  readonly quotaPerDay?: number | undefined;
}

/** A steady rate as a quota per window in whole requests (the draft's `q` is an integer). */
const steadyItem = (rate: number): string =>
  Number.isInteger(rate) ? `"steady";q=${rate};w=1` : `"steady";q=${Math.max(1, Math.floor(rate * 60))};w=60`;

/**
 * The `RateLimit-Policy` value (draft-ietf-httpapi-ratelimit-headers): one quota policy per
 * limit, `q` requests per `w` seconds, e.g. `"burst";q=100;w=1, "steady";q=50;w=1,
 * "daily";q=2000000;w=86400`. `burst` is what may arrive at once, `steady` what may be sent
 * every second after it; the daily window is the UTC day.
 */
export const rateLimitPolicy = ({ rateLimit, burstLimit, quotaPerDay }: RateLimits): string =>
  [
    `"burst";q=${burstLimit};w=1`,
    steadyItem(rateLimit),
    ...(quotaPerDay === undefined ? [] : [`"daily";q=${quotaPerDay};w=86400`]),
  ].join(', ');

/** The environment variables that hand a stage's limits per key to the authorizer. */
const KEY_LIMITS_ENV = {
  rateLimit: 'KEY_RATE_LIMIT',
  burstLimit: 'KEY_BURST_LIMIT',
  quotaPerDay: 'KEY_QUOTA_PER_DAY',
} as const;

/** The limits the environment names; undefined when it names none (no header then). */
export const rateLimitsFromEnv = (env: Record<string, string | undefined>): RateLimits | undefined => {
  const rateLimit = Number(env[KEY_LIMITS_ENV.rateLimit]);
  const burstLimit = Number(env[KEY_LIMITS_ENV.burstLimit]);
  if (!(rateLimit > 0 && Number.isFinite(rateLimit)) || !(burstLimit > 0 && Number.isInteger(burstLimit)))
    return undefined;
  const quota = Number(env[KEY_LIMITS_ENV.quotaPerDay]);
  return { rateLimit, burstLimit, quotaPerDay: Number.isInteger(quota) && quota > 0 ? quota : undefined };
};

/** The environment that names `limits` (the stack gives it to the authorizer; the local stage too). */
export const rateLimitsEnv = (limits: RateLimits): Record<string, string> => ({
  [KEY_LIMITS_ENV.rateLimit]: String(limits.rateLimit),
  [KEY_LIMITS_ENV.burstLimit]: String(limits.burstLimit),
  ...(limits.quotaPerDay !== undefined && { [KEY_LIMITS_ENV.quotaPerDay]: String(limits.quotaPerDay) }),
});
