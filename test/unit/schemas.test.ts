import { describe, expect, test } from 'vitest';
import type { z } from 'zod/mini';
import { validationError } from '../../shared/api/errors.ts';
import { ListPetsQuery, MAX_ID, NewPet, PetIdParams } from '../../shared/api/schemas.ts';
import { createCursorCodec } from '../../shared/domain/cursor.ts';

/** The 400 the API would answer for `input`, or undefined when it is valid. */
const refusal = (schema: z.ZodMiniType, input: unknown) => {
  const parsed = schema.safeParse(input);
  return parsed.success ? undefined : validationError(parsed.error, 'body');
};

describe('NewPet', () => {
  test('accepts a minimal body and defaults status to available', () => {
    expect(NewPet.parse({ name: 'Rex', categoryId: 7 })).toEqual({ name: 'Rex', categoryId: 7, status: 'available' });
  });

  test.each(['available', 'pending', 'sold'] as const)('keeps status %s', (status) => {
    expect(NewPet.parse({ name: 'Rex', categoryId: 7, status }).status).toBe(status);
  });

  test.each(['Available', 'SOLD', '', 'adopted', null, 1])('refuses status %j', (status) => {
    expect(refusal(NewPet, { name: 'Rex', categoryId: 7, status })?.details).toEqual([
      { field: 'status', message: 'must be one of available, pending, sold' },
    ]);
  });

  test.each([
    ['id', 1],
    ['tags', []],
    ['__proto__x', 1],
    ['createdAt', 'now'],
  ])('refuses the unknown field %s and names it', (field, value) => {
    const error = refusal(NewPet, { name: 'Rex', categoryId: 7, [field]: value });
    expect(error?.status).toBe(400);
    expect(error?.details).toEqual([{ field, message: 'is not allowed' }]);
    expect(error?.message).toContain(field);
  });

  test('names every unknown field', () => {
    const error = refusal(NewPet, { name: 'Rex', categoryId: 7, id: 3, extra: true });
    expect(error?.details?.map((d) => d.field).sort()).toEqual(['extra', 'id']);
  });

  test('says which required field is missing', () => {
    expect(refusal(NewPet, { categoryId: 7 })?.details).toEqual([{ field: 'name', message: 'is required' }]);
    expect(refusal(NewPet, { name: 'Rex' })?.details).toEqual([{ field: 'categoryId', message: 'is required' }]);
    expect(
      refusal(NewPet, {})
        ?.details?.map((d) => d.field)
        .sort(),
    ).toEqual(['categoryId', 'name']);
  });

  test('trims white space around the name', () => {
    expect(NewPet.parse({ name: ' \t Rex the dog \n', categoryId: 1 }).name).toBe('Rex the dog');
  });

  test('counts the name in code points: 200 emoji fit, 201 characters do not', () => {
    const emoji = '🐕'; // two UTF-16 units, one character
    expect(NewPet.parse({ name: emoji.repeat(200), categoryId: 1 }).name).toBe(emoji.repeat(200));
    expect(NewPet.parse({ name: 'a'.repeat(200), categoryId: 1 }).name).toHaveLength(200);
    expect(refusal(NewPet, { name: 'a'.repeat(201), categoryId: 1 })?.details?.[0]?.field).toBe('name');
    expect(refusal(NewPet, { name: emoji.repeat(201), categoryId: 1 })?.details?.[0]?.field).toBe('name');
    // Trimming happens first: 200 characters plus surrounding spaces are fine.
    expect(NewPet.parse({ name: `  ${'b'.repeat(200)}  `, categoryId: 1 }).name).toHaveLength(200);
  });

  test.each(['', '   ', '\n\t'])('refuses the name %j, empty after trimming', (name) => {
    expect(refusal(NewPet, { name, categoryId: 1 })?.details).toEqual([
      { field: 'name', message: 'must be a string of 1 to 200 characters' },
    ]);
  });

  // The contract's control characters: U+0000–U+001F and U+007F–U+009F, anywhere after trimming,
  // so that no name can carry a terminal escape sequence (ESC is U+001B, CSI U+009B) to a consumer.
  test.each([
    ['U+001B (ESC, a colour)', 'Rex\u001b[31m'],
    ['U+001B and U+0007 (a window title)', '\u001b]0;title\u0007'],
    ['U+0000', 'Re\u0000x'],
    ['U+0009 (tab) inside', 'Re\tx'],
    ['U+000A (line feed) inside', 'Re\nx'],
    ['U+007F', 'Rex\u007f'],
    ['U+0080', 'Rex\u0080'],
    ['U+009B (CSI)', 'Rex\u009b2J'],
    ['U+009F', 'Rex\u009f'],
    ['U+0001 between spaces', ' \u0001 '],
  ])('refuses a name with %s: a control character, named', (_, name) => {
    expect(refusal(NewPet, { name, categoryId: 1 })?.details).toEqual([
      { field: 'name', message: 'must not contain control characters (U+0000–U+001F, U+007F–U+009F)' },
    ]);
  });

  test.each([
    ['white space around it, trimmed', ' \t\r\n Rex \n', 'Rex'],
    ['the characters next to the ranges', 'Rex \u00a0 ~ \u00a1', 'Rex \u00a0 ~ \u00a1'],
    ['an emoji and a right-to-left letter', 'Rex 🐕 \u05d0', 'Rex 🐕 \u05d0'],
  ])('accepts a name with %s', (_, name, stored) => {
    expect(NewPet.parse({ name, categoryId: 1 }).name).toBe(stored);
  });

  test.each([42, null, ['Rex'], { first: 'Rex' }])('refuses the name %j', (name) => {
    expect(refusal(NewPet, { name, categoryId: 1 })?.details?.[0]?.field).toBe('name');
  });

  test.each([1, 7, MAX_ID])('accepts categoryId %d', (categoryId) => {
    expect(NewPet.parse({ name: 'Rex', categoryId }).categoryId).toBe(categoryId);
  });

  test.each(['7', 7.5, -1, 0, 2 ** 53, 1e300, null, true, Number.NaN])('refuses categoryId %j', (categoryId) => {
    const error = refusal(NewPet, { name: 'Rex', categoryId });
    expect(error?.details).toEqual([{ field: 'categoryId', message: `must be an integer from 1 to ${MAX_ID}` }]);
    expect(error?.message).toBe(`categoryId must be an integer from 1 to ${MAX_ID}`);
  });
});

describe('ListPetsQuery', () => {
  test('defaults limit to 20 and leaves status and cursor out', () => {
    expect(ListPetsQuery.parse({})).toEqual({ limit: 20 });
  });

  test.each([
    ['1', 1],
    ['20', 20],
    ['100', 100],
  ])('accepts limit %j', (limit, expected) => {
    expect(ListPetsQuery.parse({ limit }).limit).toBe(expected);
  });

  test.each(['0', '101', 'abc', '1.5', '', '-1', '+5', ' 5', '1e2', '0x10', '1000'])('refuses limit %j', (limit) => {
    expect(refusal(ListPetsQuery, { limit })?.details).toEqual([
      { field: 'limit', message: 'must be an integer from 1 to 100' },
    ]);
  });

  test.each(['available', 'pending', 'sold'] as const)('accepts status %s', (status) => {
    expect(ListPetsQuery.parse({ status }).status).toBe(status);
  });

  test.each(['Available', 'SOLD', 'Pending', '', 'all'])('refuses status %j (the case matters)', (status) => {
    expect(refusal(ListPetsQuery, { status })?.details?.[0]?.field).toBe('status');
  });

  test('refuses an empty cursor', () => {
    expect(refusal(ListPetsQuery, { cursor: '' })?.details?.[0]?.field).toBe('cursor');
  });

  test('bounds the cursor (OWASP API4): one as the service issues it passes; longer or otherwise spelt is refused', () => {
    const issued = createCursorCodec('a-cursor-secret-of-at-least-32-characters').encode({
      after: MAX_ID,
      status: 'available',
    });
    expect(ListPetsQuery.parse({ cursor: issued }).cursor).toBe(issued);
    for (const cursor of [`${'A'.repeat(200)}.${'B'.repeat(60)}`, 'abc', 'a.b.c', 'a b.c', 'a+b.c']) {
      expect(refusal(ListPetsQuery, { cursor })?.details).toEqual([{ field: 'cursor', message: 'is invalid' }]);
    }
  });
});

describe('PetIdParams', () => {
  test.each([
    ['1', 1],
    ['42', 42],
    [String(MAX_ID), MAX_ID],
  ])('accepts %s', (petId, expected) => {
    expect(PetIdParams.parse({ petId }).petId).toBe(expected);
  });

  test.each([
    '0',
    '007',
    '01',
    '+1',
    '-1',
    '1.0',
    '1e3',
    'abc',
    '',
    ' 1',
    String(MAX_ID + 1),
    '9999999999999999',
    '99999999999999999999',
  ])('refuses %j', (petId) => {
    const error = refusal(PetIdParams, { petId });
    expect(error?.status).toBe(400);
    expect(error?.details?.[0]?.field).toBe('petId');
  });
});
