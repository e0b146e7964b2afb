// Random and malformed requests for the fuzzing in test/e2e/fuzz.test.ts and bench/fuzz.ts:
// bodies, query strings, headers, path parameters and methods, valid and not,
// including oversized ones. Only what node:http can put on the wire is generated.
import fc from 'fast-check';
import { MAX_BODY_BYTES, pathParameters, type Route, resourcePath, routes } from '../../../shared/api/routes.ts';
import { LIMIT_MAX, MAX_ID, NAME_MAX_LENGTH, querySchemas } from '../../../shared/api/schemas.ts';

export interface FuzzRequest {
  method: string;
  /** Path and query, as sent on the request line. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

const STATUSES = ['available', 'pending', 'sold'];
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Characters node:http accepts in a request path (no space or control characters). */
const pathChar = fc.integer({ min: 0x21, max: 0xff }).map((code) => String.fromCharCode(code));
const rawText = (maxLength: number) => fc.string({ unit: pathChar, maxLength });
/** Characters node:http accepts in a header value (latin-1 without control characters). */
const headerChar = fc
  .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }))
  .map((code) => String.fromCharCode(code));
/** Any Unicode text, percent-encoded as a client would send it. */
const encodedText = (maxLength: number) => fc.string({ unit: 'binary', maxLength }).map(encodeURIComponent);
/** Broken percent-encodings and other things a decoder trips on. */
const brokenEncoding = fc.constantFrom(
  '%',
  '%2',
  '%zz',
  '%E0%A4%A',
  '%C0%AF',
  '%00',
  '%FF%FE',
  '..',
  '%2e%2e',
  '%2F',
  '//',
);
const bigNumber = fc.oneof(
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.constantFrom(String(MAX_ID), String(MAX_ID + 1), '9'.repeat(40)),
);
const numberText = fc.oneof(
  fc.integer({ min: -5, max: LIMIT_MAX + 5 }).map(String),
  bigNumber,
  fc.double().map(String),
  fc.constantFrom('1e3', '0x10', '007', '+5', ' 5', '1.0', ''),
);
/** Names that reach Object.prototype when used as keys of a plain object. */
const prototypeNames = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty');
const oversized = fc.integer({ min: 1, max: 3 }).map((factor) => 'x'.repeat(factor * 2500));

/** A path parameter's value: mostly a plausible id, else anything a decoder or a parser trips on. */
const parameterSegment = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 2000 }).map(String) },
  { weight: 2, arbitrary: numberText.map(encodeURIComponent) },
  { weight: 2, arbitrary: encodedText(20) },
  { weight: 1, arbitrary: brokenEncoding },
  { weight: 1, arbitrary: rawText(20).filter((s) => !s.includes('/') && !s.includes('?') && !s.includes('#')) },
  { weight: 1, arbitrary: oversized },
);

/** Every query parameter some operation reads (its route entry's query schema). */
const QUERY_NAMES = [
  ...new Set(routes.flatMap((r) => (r.query === undefined ? [] : Object.keys(querySchemas[r.query].shape)))),
];

const queryParameter = fc.tuple(
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...QUERY_NAMES) },
    { weight: 1, arbitrary: prototypeNames },
    { weight: 1, arbitrary: encodedText(10) },
    { weight: 1, arbitrary: brokenEncoding },
  ),
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...STATUSES, 'AVAILABLE', 'Sold', '1', '20', '100', '') },
    { weight: 3, arbitrary: numberText.map(encodeURIComponent) },
    { weight: 2, arbitrary: encodedText(30) },
    { weight: 1, arbitrary: fc.base64String({ maxLength: 80 }).map((text) => `${text}.${text.slice(0, 10)}`) },
    { weight: 1, arbitrary: brokenEncoding },
    { weight: 1, arbitrary: oversized },
  ),
);
const queryString = fc
  .array(queryParameter, { maxLength: 4 })
  .map((pairs) => (pairs.length ? `?${pairs.map(([name, value]) => `${name}=${value}`).join('&')}` : ''));

/** Bodies: near-valid animals with odd fields, arbitrary JSON, broken JSON, raw bytes, oversized. */
const jsonBody = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record(
        {
          name: fc.oneof(
            fc.string({ maxLength: NAME_MAX_LENGTH + 5 }),
            fc.string({ unit: 'grapheme', maxLength: 20 }),
            fc.anything(),
          ),
          categoryId: fc.oneof(fc.integer({ min: -2, max: 100 }), fc.double(), bigNumber, fc.anything()),
          status: fc.oneof(fc.constantFrom(...STATUSES), fc.string({ maxLength: 10 }), fc.anything()),
          id: fc.anything(),
        },
        { requiredKeys: [] },
      )
      .map((record) => JSON.stringify(record)),
  },
  { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
  {
    weight: 1,
    arbitrary: fc
      .jsonValue({ maxDepth: 2 })
      .map((value) => JSON.stringify({ name: 'Rex', categoryId: 1, extra: value })),
  },
  { weight: 1, arbitrary: prototypeNames.map((name) => `{"name":"Rex","categoryId":1,"${name}":{"status":"sold"}}`) },
);
const body = fc.oneof(
  { weight: 6, arbitrary: jsonBody.map((text) => Buffer.from(text, 'utf8')) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 50 }).map((text) => Buffer.from(text, 'utf8')) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: MAX_BODY_BYTES - 20, max: MAX_BODY_BYTES + 200 })
      .map((size) => Buffer.from(JSON.stringify({ name: 'x'.repeat(size), categoryId: 1 }))),
  },
  { weight: 1, arbitrary: fc.constant(Buffer.alloc(0)) },
);

/** The Authorization header: mostly the valid key, else every way of getting it wrong. */
const authorization = (key: string) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(`Bearer ${key}`, `bearer ${key}`, `BEARER  ${key}`) },
    {
      weight: 3,
      arbitrary: fc.oneof(
        fc.constant(undefined),
        fc.constantFrom(
          '',
          'Bearer',
          'Bearer ',
          `Basic ${key}`,
          `Bearer ${key} ${key}`,
          `Bearer ${key.slice(0, -1)}`,
          `Bearer ${key}x`,
          `Token ${key}`,
          key,
        ),
        fc
          .string({ unit: fc.constantFrom(...BASE62), minLength: 32, maxLength: 60 })
          .map((random) => `Bearer pet_${random}`),
        fc.string({ unit: headerChar, maxLength: 40 }),
        oversized.map((text) => `Bearer pet_${text}`),
      ),
    },
  );
const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'Application/JSON') },
  {
    weight: 2,
    arbitrary: fc.oneof(
      fc.constant(undefined),
      fc.constantFrom('text/plain', 'application/jsonp', 'application/x-www-form-urlencoded', 'json', ''),
      fc.string({ unit: headerChar, maxLength: 30 }),
    ),
  },
);
/** Extra headers the API ignores, now and then past the server's 16 KiB of headers; framing stays node:http's business. */
const extraHeaders = fc.dictionary(
  fc.oneof(
    { weight: 6, arbitrary: fc.stringMatching(/^x-[a-z0-9-]{1,20}$/) },
    { weight: 1, arbitrary: prototypeNames },
  ),
  fc.oneof(
    {
      weight: 10,
      arbitrary: fc.oneof(fc.string({ unit: headerChar, maxLength: 40 }), fc.constantFrom('', '\t', 'null', '{}')),
    },
    { weight: 1, arbitrary: fc.integer({ min: 12, max: 20 }).map((kib) => 'h'.repeat(kib * 1024)) },
  ),
  { maxKeys: 3 },
);

/**
 * A request of one route of the route table: its method, its path with every parameter filled,
 * and a query string (read or not, the function must refuse or ignore it). From `routes`, so that
 * a new operation is fuzzed as soon as it exists.
 */
const routeRequest = (r: Route) =>
  fc
    .tuple(
      fc.array(parameterSegment, { minLength: pathParameters(r).length, maxLength: pathParameters(r).length }),
      queryString,
    )
    .map(([values, query]) => {
      let next = 0;
      const path = resourcePath(r).replace(/\{\w+\}/g, () => values[next++]!);
      return { method: r.method, path: `${path}${query}`, takesBody: r.body !== undefined };
    });

const route = fc.oneof(
  ...routes.map((r) => ({ weight: pathParameters(r).length > 0 ? 3 : 4, arbitrary: routeRequest(r) })),
  {
    weight: 2,
    arbitrary: fc
      .record({
        method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
        path: fc.oneof(
          fc.constantFrom(
            '/',
            '/v1',
            '/v1/',
            '/v1/pets/',
            '/v1/pets/1/',
            '/v1/pets/1/extra',
            '/v2/pets',
            '//v1//pets',
            '/V1/PETS',
            '/v1/store/orders',
          ),
          fc
            .array(
              fc.oneof(
                encodedText(10),
                brokenEncoding,
                rawText(10).filter((s) => !s.includes('/')),
              ),
              { minLength: 1, maxLength: 4 },
            )
            .map((segments) => `/${segments.join('/')}`),
        ),
      })
      .map((junk) => ({ ...junk, takesBody: junk.method === 'POST' })),
  },
);

export const fuzzRequest = (key: string): fc.Arbitrary<FuzzRequest> =>
  fc
    .record({
      route,
      authorization: authorization(key),
      contentType,
      extra: extraHeaders,
      body: fc.option(body, { freq: 3, nil: undefined }),
    })
    .map(({ route: { takesBody, ...route }, authorization, contentType, extra, body }) => {
      const headers: Record<string, string> = { ...extra };
      if (authorization !== undefined) headers.Authorization = authorization;
      if (contentType !== undefined) headers['Content-Type'] = contentType;
      // A request to an operation that takes a body mostly carries one; others sometimes do.
      const withBody = takesBody ? (body ?? Buffer.from('{"name":"Rex","categoryId":1}')) : body;
      return { ...route, headers, ...(withBody !== undefined && { body: withBody }) };
    });
