// createPet over HTTP: media type, size, body validation, defaults, Location, and
// ids that stay distinct under concurrency.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalServer } from '../../tools/harness/local-server.ts';
import {
  type Animal,
  call,
  disposeServer,
  expectAnimal,
  expectBadRequest,
  expectError,
  MAX_SAFE_ID,
  postPet,
  type Reply,
  STATUSES,
  startServer,
} from './support.ts';

let server: LocalServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => disposeServer(server));

const KIB_16 = 16 * 1024;
const valid = { name: 'Rex', categoryId: 3 };

/** A body of exactly `bytes` bytes: `valid` plus a name padded to size. */
const bodyOfSize = (bytes: number): string => {
  const frame = JSON.stringify({ ...valid, name: '' });
  return JSON.stringify({ ...valid, name: 'a'.repeat(bytes - frame.length) });
};

describe('Content-Type', () => {
  it('is required: a body without one is 415', async () => {
    // A byte body: fetch adds no Content-Type of its own.
    const reply = await call(server, '/pets', {
      method: 'POST',
      body: new TextEncoder().encode(JSON.stringify(valid)),
    });
    expectError(reply, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  for (const type of [
    'text/plain',
    'application/xml',
    'application/x-www-form-urlencoded',
    'application/jsonx',
    'application/problem+json',
    'json',
  ]) {
    it(`${type} is 415`, async () => {
      expectError(await postPet(server, valid, { headers: { 'Content-Type': type } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    });
  }

  // The contract: a charset parameter other than utf-8 is 415, whichever of two it is: no part of
  // the service may read one and another part the other.
  for (const type of [
    'application/json;charset=utf-8;charset=latin1',
    'application/json; charset=utf-8; CHARSET=iso-8859-1',
    'application/json; charset="utf-8";charset=utf-16',
    'application/json; charset=latin1; charset=utf-8',
  ]) {
    it(`${type} is 415`, async () => {
      expectError(await postPet(server, valid, { headers: { 'Content-Type': type } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    });
  }

  for (const type of [
    'application/json',
    'application/json; charset=utf-8; charset=UTF-8',
    'application/json; charset=utf-8',
    'application/json;charset=UTF-8',
    'Application/JSON',
  ]) {
    it(`${type} is accepted`, async () => {
      expect((await postPet(server, valid, { headers: { 'Content-Type': type } })).status).toBe(201);
    });
  }
});

describe('body size', () => {
  it('over 16 KiB is 413', async () => {
    const body = bodyOfSize(KIB_16 + 1);
    expect(Buffer.byteLength(body)).toBe(KIB_16 + 1);
    expectError(await postPet(server, body), 413, 'PAYLOAD_TOO_LARGE');
    expectError(await postPet(server, bodyOfSize(64 * 1024)), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('is counted in bytes, not characters', async () => {
    const body = JSON.stringify({ ...valid, name: '€'.repeat(6000) }); // 6,000 characters, 18,000+ bytes
    expect(body.length).toBeLessThan(KIB_16);
    expectError(await postPet(server, body), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('of exactly 16 KiB is read (and judged on its content)', async () => {
    const body = bodyOfSize(KIB_16);
    expect(Buffer.byteLength(body)).toBe(KIB_16);
    expectBadRequest(await postPet(server, body), 'name'); // far over 200 characters, but not too large
  });
});

describe('a body that is not a JSON object is 400', () => {
  for (const [label, body] of [
    ['malformed JSON', '{"name": "Rex", "categoryId": 3'],
    ['not JSON at all', 'name=Rex&categoryId=3'],
    ['empty', ''],
    ['an array', '[{"name": "Rex", "categoryId": 3}]'],
    ['a string', '"Rex"'],
    ['a number', '3'],
    ['null', 'null'],
    ['true', 'true'],
  ]) {
    it(label!, async () => {
      expectError(await postPet(server, body!), 400, 'BAD_REQUEST');
    });
  }
});

describe('fields', () => {
  it('name and categoryId are required, each named', async () => {
    expectBadRequest(await postPet(server, { categoryId: 3 }), 'name');
    expectBadRequest(await postPet(server, { name: 'Rex' }), 'categoryId');
    const both = expectBadRequest(await postPet(server, {}), 'name');
    expect(both.details!.map((d) => d.field)).toContain('categoryId');
  });

  it('name is trimmed', async () => {
    const reply = await postPet<Animal>(server, { ...valid, name: ' \t Rex the dog \n ' });
    expect(reply.status).toBe(201);
    expect(reply.body.name).toBe('Rex the dog');
  });

  it('name has 1 to 200 characters after trimming', async () => {
    const longest = await postPet<Animal>(server, { ...valid, name: `  ${'n'.repeat(200)}  ` });
    expect(longest.status).toBe(201);
    expect(longest.body.name).toBe('n'.repeat(200));
    expect((await postPet(server, { ...valid, name: 'R' })).status).toBe(201);
    for (const name of ['', '   ', '\t\n', 'n'.repeat(201), ` ${'n'.repeat(201)} `]) {
      expectBadRequest(await postPet(server, { ...valid, name }), 'name');
    }
  });

  it('name has no control character after trimming (U+0000–U+001F, U+007F–U+009F): 400 naming it', async () => {
    for (const name of ['Rex\u001b[2J', 'Re\u0000x', 'Re\tx', 'Rex\u007f', 'Rex\u009b31m', 'Rex\u0085']) {
      const body = expectBadRequest(await postPet(server, { ...valid, name }), 'name');
      expect(body.details).toEqual([{ field: 'name', message: expect.stringMatching(/control character/) }]);
    }
    const trimmed = await postPet<Animal>(server, { ...valid, name: '\r\n Rex \u00a0\u00a1\t' });
    expect(trimmed.status).toBe(201);
    expect(trimmed.body.name).toBe('Rex \u00a0\u00a1');
  });

  it('name must be a string', async () => {
    for (const name of [42, null, true, ['Rex'], { first: 'Rex' }])
      expectBadRequest(await postPet(server, { ...valid, name }), 'name');
  });

  it('categoryId is a JSON integer from 1 to 2^53−1', async () => {
    for (const categoryId of [1, MAX_SAFE_ID]) {
      const reply = await postPet<Animal>(server, { ...valid, categoryId });
      expect(reply.status).toBe(201);
      expect(reply.body.categoryId).toBe(categoryId);
    }
    const refused = ['"7"', '7.5', '-1', '0', '9007199254740992', '1e100', 'null', 'true', '[7]', '{}'];
    for (const categoryId of refused) {
      expectBadRequest(await postPet(server, `{"name": "Rex", "categoryId": ${categoryId}}`), 'categoryId');
    }
  });

  it('categoryId is the literal as sent: one a double would round to an integer is 400; 7.0 and 7e0 are 7', async () => {
    for (const literal of ['1.0000000000000001', '9007199254740990.9999', '7.00000000000000001', '9007199254740993']) {
      expectBadRequest(await postPet(server, `{"name": "Rex", "categoryId": ${literal}}`), 'categoryId');
    }
    for (const [literal, value] of [
      ['7.0', 7],
      ['7e0', 7],
      ['70E-1', 7],
      ['0.7e1', 7],
      ['9007199254740991.000', MAX_SAFE_ID],
    ] as const) {
      const reply = await postPet<Animal>(server, `{"name": "Rex", "categoryId": ${literal}}`);
      expect(reply.status, literal).toBe(201);
      expect(reply.body.categoryId).toBe(value);
    }
  });

  it('status is one of the three values, available when omitted', async () => {
    const omitted = await postPet<Animal>(server, valid);
    expect(omitted.status).toBe(201);
    expect(omitted.body.status).toBe('available');
    for (const status of STATUSES) {
      const reply = await postPet<Animal>(server, { ...valid, status });
      expect(reply.status).toBe(201);
      expect(reply.body.status).toBe(status);
    }
    for (const status of ['Available', 'SOLD', 'lost', '', null, 1])
      expectBadRequest(await postPet(server, { ...valid, status }), 'status');
  });

  it('any other field is 400 naming it, id included', async () => {
    expectBadRequest(await postPet(server, { ...valid, color: 'brown' }), 'color');
    expectBadRequest(await postPet(server, { ...valid, id: 12345 }), 'id');
    expectBadRequest(await postPet(server, { id: 12345, ...valid, status: 'sold' }), 'id');
    const both = expectBadRequest(await postPet(server, { ...valid, tags: [], photoUrls: [] }), 'tags');
    expect(both.details!.map((d) => d.field)).toContain('photoUrls');
  });

  // A field's name is the client's text, echoed in the Error body: as for an animal's name, no
  // control character (ESC, CSI: a terminal escape sequence) reaches whoever prints the message.
  it('a field named with control characters is named by their escapes', async () => {
    const error = expectBadRequest(await postPet(server, { ...valid, 'f\u001b[2Jo\u009b': 5 }), 'f\\u001b[2Jo\\u009b');
    expect(`${error.message}${JSON.stringify(error.details)}`.replaceAll('\\u', '')).not.toMatch(/\p{Cc}/u);
    expect(error.message).toBe('f\\u001b[2Jo\\u009b is not allowed');
  });
});

/**
 * A create as a well-behaved client sends it: on the contract's 503 (a starved
 * database; the local one shares two busy cores) it waits Retry-After and retries.
 */
const createRetryingOn503 = async (name: string): Promise<Reply<Animal>> => {
  for (let attempt = 1; ; attempt++) {
    const reply = await postPet<Animal>(server, { name, categoryId: 9 });
    if (reply.status !== 503 || attempt === 5) return reply;
    expectError(reply, 503, 'SERVICE_UNAVAILABLE');
    const retryAfter = Number(reply.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
  }
};

describe('a created animal', () => {
  it('is answered with 201, all four fields, and a Location that resolves to it', async () => {
    const reply = await postPet<Animal>(server, { name: 'Bella', categoryId: 7, status: 'pending' });
    expect(reply.status).toBe(201);
    expectAnimal(reply.body);
    expect(reply.body).toMatchObject({ name: 'Bella', categoryId: 7, status: 'pending' });
    expect(reply.body.id).toBeLessThanOrEqual(MAX_SAFE_ID);

    const location = new URL(reply.headers.get('location')!, reply.url);
    expect(location.href).toBe(`${server.baseUrl}/pets/${reply.body.id}`);
    const fetched = await call<Animal>(server, location);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(reply.body);
  });

  it('can be found through the status filter that replaces getPet', async () => {
    const created = (await postPet<Animal>(server, { name: 'Findable', categoryId: 2, status: 'sold' })).body;
    const listed = await call<Animal[]>(server, '/pets?status=sold&limit=100');
    expect(listed.body).toContainEqual(created);
  });

  it('gets an id no other animal has, even with 50 creates at once', async () => {
    const names = Array.from({ length: 50 }, (_, i) => `concurrent ${i}`);
    const replies = await Promise.all(names.map((name) => createRetryingOn503(name)));
    for (const reply of replies) expect(reply.status).toBe(201);
    const ids = replies.map((r) => r.body.id);
    expect(new Set(ids).size).toBe(names.length);
    // Nothing was overwritten: each id still holds its own animal.
    const fetched = await Promise.all(ids.map((id) => call<Animal>(server, `/pets/${id}`)));
    for (const [i, reply] of fetched.entries()) expect(reply.body).toEqual(replies[i]!.body);
  });
});
