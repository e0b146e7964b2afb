// The request body as JSON (shared/lambda/http.ts): numbers are judged by their literal, not by
// the double JSON.parse rounds them to (docs/api.md, createPet: categoryId).
import type { APIGatewayProxyEvent } from 'aws-lambda';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { BadRequestError } from '../../shared/api/errors.ts';
import { MAX_ID, NewPet } from '../../shared/api/schemas.ts';
import { parseJsonBody } from '../../shared/lambda/http.ts';

const eventWith = (body: string) =>
  ({
    headers: { 'Content-Type': 'application/json' },
    body,
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEvent;
const categoryOf = (literal: string) =>
  parseJsonBody(eventWith(`{"name": "Rex", "categoryId": ${literal}}`), NewPet).data.categoryId;

/** Ways to write the integer `n` exactly: a fraction of zeros, an exponent, digits moved across the point. */
const exactForms = (n: bigint, zeros: number, shift: number): string[] => [
  `${n}`,
  `${n}.${'0'.repeat(zeros + 1)}`,
  `${n}e0`,
  `${n}${'0'.repeat(shift)}e-${shift}`,
  `${n * 10n ** BigInt(shift)}E-${shift}`,
];

test('every exact way of writing an integer in range is that integer', () => {
  fc.assert(
    fc.property(fc.bigInt(1n, BigInt(MAX_ID)), fc.nat(20), fc.nat(30), (n, zeros, shift) => {
      for (const literal of exactForms(n, zeros, shift)) expect(categoryOf(literal), literal).toBe(Number(n));
    }),
  );
});

test('a literal that is not exactly an integer is 400, even where a double rounds it to one', () => {
  fc.assert(
    fc.property(fc.bigInt(1n, BigInt(MAX_ID)), fc.nat(30), fc.integer({ min: 1, max: 9 }), (n, zeros, digit) => {
      const literal = `${n}.${'0'.repeat(zeros)}${digit}`; // n + a fraction, however small
      expect(() => categoryOf(literal), literal).toThrow(BadRequestError);
    }),
  );
  for (const literal of ['1.0000000000000001', '9007199254740990.9999', '9007199254740993', '1e400', '15e-1'])
    expect(() => categoryOf(literal), literal).toThrow(BadRequestError);
});

test('the body as parsed, which an Idempotency-Key is bound to, is the JSON sent, a byte order mark dropped', () => {
  const { json } = parseJsonBody(eventWith('\uFEFF{"categoryId": 7.0, "name": "Rex 2.0"}'), NewPet);
  expect(json).toEqual({ categoryId: 7, name: 'Rex 2.0' });
});
