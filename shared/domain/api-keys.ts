// API keys: `pet_` + 43 base62 characters (256 bits), stored only as SHA-256.
import { createHash, randomInt } from 'node:crypto';

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
