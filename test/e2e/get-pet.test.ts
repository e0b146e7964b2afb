// getPet over HTTP: petId rules, 200/404, and the deprecation headers on every answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalServer } from '../../tools/harness/local-server.ts';
import {
  type Animal,
  call,
  createPet,
  disposeServer,
  expectAnimal,
  expectBadRequest,
  expectError,
  links,
  MAX_SAFE_ID,
  type Reply,
  startServer,
} from './support.ts';

let server: LocalServer;
let pet: Animal;
beforeAll(async () => {
  server = await startServer();
  pet = await createPet(server, { name: 'Old Faithful', categoryId: 4, status: 'pending' });
});
afterAll(() => disposeServer(server));

const get = (petId: string) => call<Animal>(server, `/pets/${petId}`);

/** RFC 9745 Deprecation (not after the response), RFC 8594 Sunset, and the successor listing. */
const expectDeprecationHeaders = (reply: Reply) => {
  const deprecation = /^@(\d+)$/.exec(reply.headers.get('deprecation') ?? '');
  expect(deprecation, `Deprecation: ${reply.headers.get('deprecation')}`).not.toBeNull();
  const answeredAt = Date.parse(reply.headers.get('date')!);
  expect(Number.isNaN(answeredAt)).toBe(false);
  expect(Number(deprecation![1]) * 1000).toBeLessThanOrEqual(answeredAt);
  expect(reply.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
  expect(links(reply).get('successor-version')?.href).toBe(`${server.baseUrl}/pets`);
};

describe('getPet', () => {
  it('answers 200 with the animal, exactly its four fields', async () => {
    const reply = await get(String(pet.id));
    expect(reply.status).toBe(200);
    expectAnimal(reply.body);
    expect(reply.body).toEqual(pet);
  });

  it('answers 404 NOT_FOUND when no animal has the id, up to 2^53−1', async () => {
    expectError(await get(String(MAX_SAFE_ID)), 404, 'NOT_FOUND');
    expectError(await get(String(pet.id + 1_000_000)), 404, 'NOT_FOUND');
  });

  for (const petId of [
    '0',
    '01',
    '-1',
    '+1',
    '1.5',
    'abc',
    '1e3',
    '0x10',
    '%201',
    String(MAX_SAFE_ID + 1),
    '99999999999999999999',
  ]) {
    it(`answers 400 for petId ${petId}`, async () => {
      expectBadRequest(await get(petId), 'petId');
    });
  }
});

describe('deprecation headers', () => {
  it('are on the 200', async () => {
    expectDeprecationHeaders(await get(String(pet.id)));
  });

  it('are on the 404', async () => {
    expectDeprecationHeaders(await get(String(MAX_SAFE_ID)));
  });

  it('are on the 400', async () => {
    expectDeprecationHeaders(await get('abc'));
  });

  it('are not on the operations that are not deprecated', async () => {
    for (const reply of [await call(server, '/pets'), await call(server, '/pets?limit=0')]) {
      expect(reply.headers.get('deprecation')).toBeNull();
      expect(reply.headers.get('sunset')).toBeNull();
    }
  });
});
