import { describe, expect, test } from 'vitest';
import { BadRequestError } from '../../shared/api/errors.ts';
import { MAX_ID } from '../../shared/api/schemas.ts';
import { createCursorCodec } from '../../shared/domain/cursor.ts';

const SECRET = 'a-cursor-secret-of-at-least-32-characters';
const codec = createCursorCodec(SECRET);

/** The 400 that decoding `cursor` throws, or undefined when it decodes. */
const refusal = (cursor: string, status?: 'available' | 'pending' | 'sold') => {
  try {
    codec.decode(cursor, status);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestError);
    return error as BadRequestError;
  }
};

const [payload, mac] = codec.encode({ after: 41, status: 'sold' }).split('.') as [string, string];

/** Flips one base64url character to another. */
const alter = (text: string, index: number) => {
  const replacement = text[index] === 'A' ? 'B' : 'A';
  return text.slice(0, index) + replacement + text.slice(index + 1);
};

describe('cursor codec', () => {
  test.each([
    { after: 1, status: null },
    { after: 41, status: 'sold' as const },
    { after: MAX_ID, status: 'pending' as const },
  ])('round-trips %j', (position) => {
    const cursor = codec.encode(position);
    expect(cursor).toMatch(/^[\w-]+\.[\w-]+$/); // URL-safe as is
    expect(codec.decode(cursor, position.status ?? undefined)).toEqual(position);
  });

  test('is opaque: the cursor does not spell out its contents', () => {
    expect(codec.encode({ after: 41, status: 'sold' })).not.toContain('sold');
  });

  test('refuses an altered payload, whatever character changes', () => {
    for (let i = 0; i < payload.length; i++) {
      expect(refusal(`${alter(payload, i)}.${mac}`, 'sold')?.details).toEqual([
        { field: 'cursor', message: 'is invalid' },
      ]);
    }
  });

  test('refuses a payload re-encoded with another position but the old MAC', () => {
    const forged = Buffer.from(JSON.stringify({ after: 1000, status: 'sold' })).toString('base64url');
    expect(refusal(`${forged}.${mac}`, 'sold')).toBeDefined();
  });

  test('refuses an altered MAC', () => {
    for (let i = 0; i < mac.length; i++) expect(refusal(`${payload}.${alter(mac, i)}`, 'sold')).toBeDefined();
    expect(refusal(`${payload}.${mac.slice(0, -2)}`, 'sold')).toBeDefined();
    expect(refusal(`${payload}.${mac}AA`, 'sold')).toBeDefined();
  });

  test('refuses every other spelling of the MAC, even one that decodes to the same bytes', () => {
    // 16 bytes take 22 base64url characters whose last one carries 4 unused bits.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (const replacement of alphabet.replace(mac.at(-1)!, '')) {
      expect(refusal(`${payload}.${mac.slice(0, -1)}${replacement}`, 'sold'), replacement).toBeDefined();
    }
    expect(refusal(`${payload}.${mac}AA`, 'sold')).toBeDefined();
  });

  test('refuses a cursor issued with another secret', () => {
    const foreign = createCursorCodec('another-secret-of-at-least-32-characters').encode({ after: 41, status: 'sold' });
    expect(refusal(foreign, 'sold')?.message).toBe('cursor is invalid');
  });

  test('refuses a cursor used with another status filter than it was issued for', () => {
    const filtered = codec.encode({ after: 41, status: 'sold' });
    const unfiltered = codec.encode({ after: 41, status: null });
    for (const [cursor, status] of [
      [filtered, 'available'],
      [filtered, undefined],
      [unfiltered, 'sold'],
    ] as const) {
      expect(refusal(cursor, status)?.details).toEqual([
        { field: 'cursor', message: 'does not match the status filter' },
      ]);
    }
  });

  test.each(['x', '.', 'abc.', '.abc', 'a.b.c', `${payload}.${mac}.${mac}`, '%%%.###', ' ', 'bnVsbA.AAAA', '🐕.🐕'])(
    'refuses the garbage %j',
    (garbage) => {
      expect(refusal(garbage)?.status).toBe(400);
      expect(refusal(garbage, 'sold')?.status).toBe(400);
    },
  );

  test('refuses a correctly signed payload that is not a position', () => {
    // Signed with the right secret, as a leaked MAC would be: the shape is still checked.
    const signer = createCursorCodec(SECRET);
    for (const notAPosition of [
      { after: 0, status: null },
      { after: 1.5, status: null },
      { after: 1, status: 'gone' },
      { after: 1 },
    ]) {
      const cursor = signer.encode(notAPosition as never);
      expect(refusal(cursor)?.message).toBe('cursor is invalid');
    }
  });

  test('refuses a secret shorter than 32 characters', () => {
    expect(() => createCursorCodec('short')).toThrow();
  });
});
