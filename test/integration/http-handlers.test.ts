// The error model and the middleware, through the real functions in this process,
// with hand-built REST (v1) proxy events, against dynalite.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as z from 'zod/mini';
import { ErrorBody } from '../../shared/api/schemas.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { bodyOf, type Functions, jsonPost, loadFunctions, proxyEvent, setFunctionEnv } from '../support/in-process.ts';

let db: TestDynamoDB;
let functions: Functions;
let middleware: typeof import('../../shared/lambda/middleware.ts');
let INTERNAL_ERROR_MESSAGE: string;

beforeAll(async () => {
  db = await startTestDynamoDB();
  setFunctionEnv(db.endpoint);
  functions = await loadFunctions();
  middleware = await import('../../shared/lambda/middleware.ts');
  ({
    FIXED_MESSAGES: { INTERNAL_ERROR: INTERNAL_ERROR_MESSAGE },
  } = await import('../../shared/api/errors.ts'));
});
afterAll(() => db?.close());

/** Asserts the contract's Error body for `status`/`code`, naming `requestId`; returns it. */
const expectError = (
  result: { statusCode: number; headers?: Record<string, unknown>; body: string },
  status: number,
  code: string,
  requestId: string,
) => {
  expect(result.statusCode).toBe(status);
  expect(result.headers?.['Content-Type']).toBe('application/json');
  const body = bodyOf(result as never);
  expect(z.strictObject(ErrorBody.shape).parse(body)).toEqual(body);
  expect(body).toMatchObject({ code, status, requestId });
  return body as ErrorBody;
};

const validPet = JSON.stringify({ name: 'Rex', categoryId: 3 });

describe('typed errors become the contract body, with the request id', () => {
  test('a query parameter out of range: 400 naming the field', async () => {
    const result = await functions.invoke(proxyEvent({ path: '/v1/pets?limit=0', requestId: 'req-limit-0' }));
    const body = expectError(result, 400, 'BAD_REQUEST', 'req-limit-0');
    expect(body.message).toBe('limit must be an integer from 1 to 100');
    expect(body.details).toEqual([{ field: 'limit', message: 'must be an integer from 1 to 100' }]);
  });

  test('a repeated query parameter: 400', async () => {
    const result = await functions.invoke(proxyEvent({ path: '/v1/pets?limit=5&limit=6', requestId: 'req-twice' }));
    expect(expectError(result, 400, 'BAD_REQUEST', 'req-twice').details).toEqual([
      { field: 'limit', message: 'must be given at most once' },
    ]);
  });

  test('a status in the wrong case and a forged cursor: 400', async () => {
    expectError(
      await functions.invoke(proxyEvent({ path: '/v1/pets?status=Sold', requestId: 'r1' })),
      400,
      'BAD_REQUEST',
      'r1',
    );
    const forged = await functions.invoke(
      proxyEvent({ path: '/v1/pets?cursor=eyJhZnRlciI6MX0.AAAA', requestId: 'r2' }),
    );
    expect(expectError(forged, 400, 'BAD_REQUEST', 'r2').details).toEqual([{ field: 'cursor', message: 'is invalid' }]);
  });

  test('a malformed path parameter: 400, with the deprecation headers of getPet', async () => {
    const result = await functions.invoke(proxyEvent({ path: '/v1/pets/007', requestId: 'req-007' }));
    expect(expectError(result, 400, 'BAD_REQUEST', 'req-007').details?.[0]?.field).toBe('petId');
    expect(result.headers).toMatchObject({ Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT' });
  });

  test('an unknown animal: 404 with no details, and the deprecation headers', async () => {
    const before = Math.floor(Date.now() / 1000);
    const result = await functions.invoke(proxyEvent({ path: '/v1/pets/999999', requestId: 'req-404' }));
    const body = expectError(result, 404, 'NOT_FOUND', 'req-404');
    expect(body.details).toBeUndefined();
    expect(result.headers).toMatchObject({
      Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
      Link: '</staging/v1/pets>; rel="successor-version"',
    });
    const deprecation = /^@(\d+)$/.exec(String(result.headers?.Deprecation))?.[1];
    expect(Number(deprecation)).toBeLessThanOrEqual(before);
  });

  test('an unknown field in the body: 400 naming it', async () => {
    const result = await functions.invoke(
      jsonPost(JSON.stringify({ name: 'Rex', categoryId: 3, id: 5 }), {}, 'req-id'),
    );
    const body = expectError(result, 400, 'BAD_REQUEST', 'req-id');
    expect(body.details).toEqual([{ field: 'id', message: 'is not allowed' }]);
    expect(body.message).toBe('id is not allowed');
  });

  test('a __proto__ field is an unknown field too', async () => {
    const result = await functions.invoke(
      jsonPost('{"name":"Rex","categoryId":3,"__proto__":{"status":"sold"}}', {}, 'req-proto'),
    );
    expect(expectError(result, 400, 'BAD_REQUEST', 'req-proto').details).toEqual([
      { field: '__proto__', message: 'is not allowed' },
    ]);
  });
});

describe('unknown errors become a bare 500', () => {
  const secretLooking = 'Requested resource not found: Table: PetStore-production-PetsTable1A2B3C not found';

  test.each([
    [
      'an AWS-named error',
      () =>
        Object.assign(new Error(secretLooking), {
          name: 'ResourceNotFoundException',
          $metadata: { httpStatusCode: 400 },
        }),
    ],
    ['a plain Error', () => new TypeError(`Cannot read properties of undefined (reading 'id') in ${secretLooking}`)],
    ['a thrown string', () => secretLooking],
  ])('%s: INTERNAL_ERROR with the requestId, and nothing of the cause', async (_, cause) => {
    const handler = middleware.httpHandler('listPets', async () => {
      throw cause();
    });
    const event = proxyEvent({ path: '/v1/pets', requestId: 'req-500' });
    const result = await handler(event, (await import('../support/in-process.ts')).lambdaContext('listPets'));
    const body = expectError(result, 500, 'INTERNAL_ERROR', 'req-500');
    expect(body).toEqual({
      code: 'INTERNAL_ERROR',
      message: INTERNAL_ERROR_MESSAGE,
      status: 500,
      requestId: 'req-500',
    });
    for (const leak of [
      'ResourceNotFoundException',
      'PetsTable',
      'PetStore-production',
      'TypeError',
      ' at ',
      '.ts:',
      'stack',
    ]) {
      expect(result.body).not.toContain(leak);
    }
  });
});

describe('body size: 16 KiB', () => {
  /** A valid createPet body padded with spaces to exactly `bytes` bytes. */
  const padded = (bytes: number) => validPet + ' '.repeat(bytes - validPet.length);

  test('16384 bytes exactly are accepted', async () => {
    const result = await functions.invoke(jsonPost(padded(16384)));
    expect(result.statusCode).toBe(201);
  });

  test('16385 bytes are refused with 413', async () => {
    const result = await functions.invoke(jsonPost(padded(16385), {}, 'req-413'));
    expect(expectError(result, 413, 'PAYLOAD_TOO_LARGE', 'req-413').message).toContain('16384');
  });

  test('bytes count, not characters', async () => {
    // 8193 two-byte characters: 16386 bytes, though fewer than 16384 characters.
    const body = JSON.stringify({ name: 'Rex', categoryId: 3 }).replace('}', `,"x":"${'é'.repeat(8193)}"}`);
    expect(body.length).toBeLessThan(16384);
    expectError(await functions.invoke(jsonPost(body, {}, 'req-utf8')), 413, 'PAYLOAD_TOO_LARGE', 'req-utf8');
  });

  test('a base64-encoded body counts its decoded bytes', async () => {
    const event = jsonPost(Buffer.from(padded(16384)).toString('base64'));
    event.isBase64Encoded = true;
    expect((await functions.invoke(event)).statusCode).toBe(201);
    const tooLarge = jsonPost(Buffer.from(padded(16385)).toString('base64'), {}, 'req-b64');
    tooLarge.isBase64Encoded = true;
    expectError(await functions.invoke(tooLarge), 413, 'PAYLOAD_TOO_LARGE', 'req-b64');
  });
});

describe('content type', () => {
  test.each([
    ['Content-Type', 'application/json'],
    ['Content-Type', 'application/json; charset=utf-8'],
    ['content-type', 'application/json;charset=UTF-8'],
    ['CONTENT-TYPE', 'Application/JSON'],
  ])('%s: %s is accepted', async (name, value) => {
    const event = proxyEvent({ method: 'POST', path: '/v1/pets', body: validPet, headers: { [name]: value } });
    expect((await functions.invoke(event)).statusCode).toBe(201);
  });

  test.each([
    'application/json-patch+json',
    'application/jsonl',
    'text/plain',
    'application/x-www-form-urlencoded',
    'text/json',
    '',
  ])('%j is refused with 415', async (value) => {
    const event = proxyEvent({
      method: 'POST',
      path: '/v1/pets',
      body: validPet,
      headers: { 'Content-Type': value },
      requestId: 'req-415',
    });
    expectError(await functions.invoke(event), 415, 'UNSUPPORTED_MEDIA_TYPE', 'req-415');
  });

  test('a missing Content-Type is refused with 415', async () => {
    const event = proxyEvent({ method: 'POST', path: '/v1/pets', body: validPet, requestId: 'req-none' });
    expectError(await functions.invoke(event), 415, 'UNSUPPORTED_MEDIA_TYPE', 'req-none');
  });
});

describe('bodies that are not a JSON object: 400', () => {
  test.each([
    ['malformed JSON', '{"name": "Rex",'],
    ['an empty body', ''],
    ['white space only', '  \n'],
    ['an array', '[{"name":"Rex","categoryId":3}]'],
    ['null', 'null'],
    ['a number', '42'],
    ['a string', '"Rex"'],
  ])('%s', async (_, body) => {
    const result = await functions.invoke(jsonPost(body, {}, 'req-body'));
    expect(expectError(result, 400, 'BAD_REQUEST', 'req-body').details?.[0]?.field).toBe('body');
  });

  test('no body at all (null)', async () => {
    const event = proxyEvent({
      method: 'POST',
      path: '/v1/pets',
      headers: { 'Content-Type': 'application/json' },
      requestId: 'req-null',
    });
    expectError(await functions.invoke(event), 400, 'BAD_REQUEST', 'req-null');
  });
});

describe('escapes of UTF-16 surrogates', () => {
  test('a pair is one character, stored as sent', async () => {
    const result = await functions.invoke(jsonPost('{"name": "Dog \\ud83d\\udc36", "categoryId": 1}'));
    expect(result.statusCode).toBe(201);
    expect(bodyOf(result).name).toBe('Dog \u{1f436}');
  });

  test.each([
    ['a lone high surrogate', '{"name": "Dog \\uD83D", "categoryId": 1}'],
    ['a lone low surrogate in a field name', '{"name": "Dog", "categoryId": 1, "\\udc36": 1}'],
    ['a pair in the wrong order', '{"name": "Dog \\udc36\\ud83d", "categoryId": 1}'],
  ])('%s: 400', async (_, body) => {
    const result = await functions.invoke(jsonPost(body, {}, 'req-surrogate'));
    expect(expectError(result, 400, 'BAD_REQUEST', 'req-surrogate').details?.[0]?.field).toBe('body');
  });
});

describe('success responses', () => {
  test('createPet: 201, the four fields, status defaulted, and a Location below the stage', async () => {
    const result = await functions.invoke(jsonPost(JSON.stringify({ name: '  Bella ', categoryId: 9007199254740991 })));
    expect(result.statusCode).toBe(201);
    const pet = bodyOf(result);
    expect(pet).toEqual({ id: expect.any(Number), name: 'Bella', categoryId: 9007199254740991, status: 'available' });
    expect(result.headers?.Location).toBe(`/staging/v1/pets/${pet.id}`);

    const got = await functions.invoke(proxyEvent({ path: `/v1/pets/${pet.id}` }));
    expect(got.statusCode).toBe(200);
    expect(bodyOf(got)).toEqual(pet);
    expect(got.headers).toMatchObject({
      Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
      Link: '</staging/v1/pets>; rel="successor-version"',
    });
  });

  test('listPets: a next link below the stage carrying limit, status and cursor; none on the last page', async () => {
    for (const name of ['a', 'b']) {
      await functions.invoke(jsonPost(JSON.stringify({ name, categoryId: 1, status: 'pending' })));
    }
    const first = await functions.invoke(proxyEvent({ path: '/v1/pets?status=pending&limit=1' }));
    expect(first.statusCode).toBe(200);
    expect(bodyOf(first)).toHaveLength(1);
    const link = /^<([^>]+)>; rel="next"$/.exec(String(first.headers?.Link))?.[1];
    expect(link).toMatch(/^\/staging\/v1\/pets\?limit=1&status=pending&cursor=[\w.-]+$/);

    const second = await functions.invoke(proxyEvent({ path: link!.replace('/staging', '') }));
    expect(bodyOf(second)).toHaveLength(1);
    expect(bodyOf(second)[0].id).toBeGreaterThan(bodyOf(first)[0].id);
    expect(second.headers?.Link).toBeUndefined();
  });
});
