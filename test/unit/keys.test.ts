import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { bearerKey, generateKey, generateKeyId, hashKey, KEY_PATTERN } from '../../shared/domain/api-keys.ts';

const key = generateKey();

describe('bearerKey', () => {
  test.each(['Bearer', 'bearer', 'BEARER', 'bEaReR'])('reads the key with the scheme spelled %s', (scheme) => {
    expect(bearerKey(`${scheme} ${key}`)).toBe(key);
  });

  test('allows more than one space after the scheme', () => {
    expect(bearerKey(`Bearer   ${key}`)).toBe(key);
  });

  test.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['Basic', `Basic ${Buffer.from('user:pass').toString('base64')}`],
    ['Basic with a key', `Basic ${key}`],
    ['Bearer alone', 'Bearer'],
    ['Bearer and a space', 'Bearer '],
    ['two tokens', `Bearer ${key} ${key}`],
    ['a token after the key', `Bearer ${key} extra`],
    ['the key without a scheme', key],
    ['no space after the scheme', `Bearer${key}`],
    ['a tab after the scheme', `Bearer\t${key}`],
    ['another scheme prefix', `Bearerx ${key}`],
    ['a key without the pet_ prefix', `Bearer ${key.slice(4)}`],
    ['a key too short', `Bearer pet_${'a'.repeat(31)}`],
    ['a key with a non-base62 character', `Bearer ${key.slice(0, -1)}-`],
    ['trailing white space', `Bearer ${key} `],
    ['a line break', `Bearer ${key}\n`],
  ])('refuses %s', (_, header) => {
    expect(bearerKey(header)).toBeUndefined();
  });
});

describe('keys', () => {
  test('look like pet_ and at least 32 base62 characters, carrying at least 190 random bits', () => {
    expect(key).toMatch(KEY_PATTERN);
    expect(key).toMatch(/^pet_[0-9A-Za-z]{32,}$/);
    const randomChars = key.length - 'pet_'.length;
    expect(randomChars * Math.log2(62)).toBeGreaterThanOrEqual(190);
  });

  test('draw from all 62 characters, and never repeat', () => {
    const keys = Array.from({ length: 300 }, generateKey);
    expect(new Set(keys).size).toBe(keys.length);
    // ~12,900 draws: a missing character would mean a smaller alphabet (fewer bits).
    expect(new Set(keys.join('').replaceAll('pet_', '')).size).toBe(62);
  });

  test('key ids are short, non-secret names unrelated to the key', () => {
    const keyId = generateKeyId();
    expect(keyId).toMatch(/^key_[0-9A-Za-z]{10}$/);
    expect(key).not.toContain(keyId.slice(4));
  });

  test('are stored as their SHA-256, hex', () => {
    expect(hashKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'); // FIPS 180-2 vector
    expect(hashKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashKey(key)).not.toBe(hashKey(generateKey()));
  });
});
