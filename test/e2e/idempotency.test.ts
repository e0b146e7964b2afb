// Safe retries over HTTP (docs/api.md, "Safe retries"): a repeat with the same
// Idempotency-Key and body replays the first 201; another body is 422; a repeat while
// the first runs is 409; keys are per caller; a malformed key is 400.
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalServer } from '../../tools/harness/local-server.ts';
import {
  type Animal,
  allPages,
  bearer,
  disposeServer,
  expectAnimal,
  expectBadRequest,
  expectError,
  issueKey,
  postPet,
  type Reply,
  startServer,
} from './support.ts';

let server: LocalServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => disposeServer(server));

const withKey = (key: string, authorization?: string) => ({
  headers: { 'Idempotency-Key': key },
  ...(authorization && { authorization }),
});
/** A name no other test uses, to count the animals a test made. */
const uniqueName = () => `Idem ${randomUUID()}`;
const animalsNamed = async (name: string): Promise<Animal[]> =>
  (await allPages(server, '/pets?limit=100')).flatMap((page) => page.body).filter((animal) => animal.name === name);

const expectCreated = (reply: Reply): Animal => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  expectAnimal(reply.body);
  expect(reply.headers.get('location')).toMatch(new RegExp(`/pets/${reply.body.id}$`));
  return reply.body;
};

const expectReplayOf = (reply: Reply, first: Reply) => {
  expect(reply.status).toBe(201);
  expect(reply.body).toEqual(first.body);
  expect(reply.headers.get('location')).toBe(first.headers.get('location'));
  expect(reply.headers.get('idempotent-replayed')).toBe('true');
};

describe('a repeat with the same key and body', () => {
  it('creates nothing and gets the first response again, marked Idempotent-Replayed', async () => {
    const name = uniqueName();
    const first = await postPet(server, { name, categoryId: 4, status: 'pending' }, withKey(randomUUID()));
    expectCreated(first);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expectCreated(await postPet(server, { name, categoryId: 4 }, withKey(randomUUID()))); // another key: another animal

    const idempotencyKey = randomUUID();
    const original = await postPet(server, { name, categoryId: 5, status: 'sold' }, withKey(idempotencyKey));
    expectCreated(original);
    // Same JSON, other key order and white space: the same body.
    const again = await postPet(
      server,
      `{ "status" : "sold",\n "categoryId": 5, "name": ${JSON.stringify(name)} }`,
      withKey(idempotencyKey),
    );
    expectReplayOf(again, original);
    expectReplayOf(await postPet(server, { name, categoryId: 5, status: 'sold' }, withKey(idempotencyKey)), original);
    expect(await animalsNamed(name)).toHaveLength(3);
  });

  it('the quoted form of a key is the same key', async () => {
    const key = `k-${randomUUID()}`;
    const body = { name: uniqueName(), categoryId: 1 };
    const first = await postPet(server, body, withKey(`"${key}"`));
    expectCreated(first);
    expectReplayOf(await postPet(server, body, withKey(key)), first);
  });

  it('without the header, every call creates an animal', async () => {
    const body = { name: uniqueName(), categoryId: 2 };
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(expectCreated(await postPet(server, body)).id);
    expect(new Set(ids).size).toBe(3);
  });
});

describe('the same key with a different body', () => {
  it('is 422, and the first response is still replayed afterwards', async () => {
    const key = randomUUID();
    const body = { name: uniqueName(), categoryId: 7 };
    const first = await postPet(server, body, withKey(key));
    expectCreated(first);
    for (const other of [
      { ...body, categoryId: 8 },
      { ...body, status: 'available' },
      { ...body, name: ` ${body.name}` },
    ]) {
      expectError(await postPet(server, other, withKey(key)), 422, 'UNPROCESSABLE_ENTITY');
    }
    expectReplayOf(await postPet(server, body, withKey(key)), first);
    expect(await animalsNamed(body.name)).toHaveLength(1);
  });
});

describe('malformed keys', () => {
  const body = { name: 'Malformed', categoryId: 1 };
  for (const [label, value] of [
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['an inner space', 'a b'],
    ['a tab', 'a\tb'],
    ['a non-ASCII character', 'caf\u00e9'],
    ['an empty quoted form', '""'],
    ['a quoted form with a space', '"a b"'],
  ] as const) {
    it(`${label} is 400 naming the header, and creates nothing`, async () => {
      const name = uniqueName();
      expectBadRequest(await postPet(server, { ...body, name }, withKey(value)), 'Idempotency-Key');
      expect(await animalsNamed(name)).toHaveLength(0);
    });
  }

  it('255 visible characters, the whole range 0x21–0x7E, are a key', async () => {
    const visible = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
    const key = `${visible}${randomUUID()}`.padEnd(255, '~').slice(0, 255);
    const first = await postPet(server, { ...body, name: uniqueName() }, withKey(key));
    expectCreated(first);
  });

  it('two Idempotency-Key headers are 400', async () => {
    const url = new URL(`${server.baseUrl}/pets`);
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        url,
        {
          method: 'POST',
          // As an array, so the header goes twice; Node then adds no Host of its own.
          headers: [
            ['Host', url.host],
            ['Authorization', bearer(server.key)],
            ['Content-Type', 'application/json'],
            ['Idempotency-Key', 'one'],
            ['Idempotency-Key', 'two'],
          ].flat(),
        },
        (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
    expect(status, text).toBe(400);
    expect(JSON.parse(text)).toMatchObject({ code: 'BAD_REQUEST', details: [{ field: 'Idempotency-Key' }] });
  });
});

describe('concurrency', () => {
  it('10 requests at once with one key make exactly one animal; the others replay it or get 409 with Retry-After', async () => {
    const key = randomUUID();
    const body = { name: uniqueName(), categoryId: 9 };
    const replies = await Promise.all(Array.from({ length: 10 }, () => postPet<Animal>(server, body, withKey(key))));
    const created = replies.filter((r) => r.status === 201);
    const conflicts = replies.filter((r) => r.status === 409);
    expect(created.length + conflicts.length, JSON.stringify(replies.map((r) => r.status))).toBe(10);
    expect(created.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    for (const conflict of conflicts) {
      expectError(conflict, 409, 'CONFLICT');
      expect(conflict.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    }
    // Retried once the first has answered, every one of them gets its 201.
    const first = created.find((r) => r.headers.get('idempotent-replayed') === null)!;
    expectReplayOf(await postPet(server, body, withKey(key)), first);
    expect(await animalsNamed(body.name)).toHaveLength(1);
  });
});

describe('scope', () => {
  it('two callers with the same key each get their own animal, never the other’s response', async () => {
    const other = await issueKey(server.dataDir, 'e2e idempotency');
    const key = randomUUID();
    const body = { name: uniqueName(), categoryId: 11 };
    const mine = await postPet(server, body, withKey(key));
    expectCreated(mine);
    const theirs = await postPet(server, body, withKey(key, bearer(other.key)));
    expectCreated(theirs);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect((theirs.body as Animal).id).not.toBe((mine.body as Animal).id);
    // Each replays its own, and the key's body is checked against the caller's own record only.
    expectReplayOf(await postPet(server, body, withKey(key, bearer(other.key))), theirs);
    expectReplayOf(await postPet(server, body, withKey(key)), mine);
    const otherBody = { ...body, categoryId: 12 };
    expectError(await postPet(server, otherBody, withKey(key, bearer(other.key))), 422, 'UNPROCESSABLE_ENTITY');
  });
});

describe('a body the service accepts without a key', () => {
  it('is accepted with one: a UTF-8 byte order mark changes nothing, and the body is compared as parsed', async () => {
    const key = randomUUID();
    const name = uniqueName();
    const first = await postPet(server, `\uFEFF{"name": ${JSON.stringify(name)}, "categoryId": 7.0}`, withKey(key));
    expectCreated(first);
    expect(first.body).toMatchObject({ name, categoryId: 7 });
    expectReplayOf(await postPet(server, { categoryId: 7, name }, withKey(key)), first);
    expectReplayOf(
      await postPet(server, `\uFEFF{"categoryId":7e0,"name":${JSON.stringify(name)}}`, withKey(key)),
      first,
    );
    expect(await animalsNamed(name)).toHaveLength(1);
  });
});

describe('a failed attempt', () => {
  it('a 400 is not remembered: the same key with a valid body then creates', async () => {
    const key = randomUUID();
    const name = uniqueName();
    expectBadRequest(await postPet(server, { name, categoryId: 0 }, withKey(key)), 'categoryId');
    const created = await postPet(server, { name, categoryId: 1 }, withKey(key));
    expectCreated(created);
    expect(created.headers.get('idempotent-replayed')).toBeNull();
  });
});
