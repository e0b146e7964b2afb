// What every response carries, and the one Error body, whichever layer answers:
// the emulated API Gateway (unknown route, refused key) or a function (validation,
// not found, size, media type).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalServer } from '../../tools/harness/local-server.ts';
import {
  bearer,
  call,
  createPet,
  disposeServer,
  expectError,
  postPet,
  type Reply,
  startServer,
  unknownKey,
} from './support.ts';

let server: LocalServer;
let petId: number;
const requestIds: string[] = [];
beforeAll(async () => {
  server = await startServer();
  petId = (await createPet(server, { name: 'Known', categoryId: 1 })).id;
});
afterAll(() => disposeServer(server));

/** Every reply of this file, so that request ids can be compared across all of them. */
const seen = (reply: Reply): Reply => {
  requestIds.push(reply.headers.get('x-amzn-requestid')!);
  return reply;
};

const errorCases: Array<[string, () => Promise<Reply>, number, string]> = [
  ['unknown route, no key', () => call(server, '/nowhere', { authorization: null }), 404, 'NOT_FOUND'],
  ['unknown method', () => call(server, '/pets', { method: 'DELETE' }), 404, 'NOT_FOUND'],
  ['no key', () => call(server, '/pets', { authorization: null }), 401, 'UNAUTHORIZED'],
  ['unknown key', () => call(server, '/pets', { authorization: bearer(unknownKey()) }), 401, 'UNAUTHORIZED'],
  ['malformed key', () => call(server, '/pets', { authorization: 'Bearer pet_' }), 401, 'UNAUTHORIZED'],
  ['bad limit', () => call(server, '/pets?limit=0'), 400, 'BAD_REQUEST'],
  ['bad status', () => call(server, '/pets?status=lost'), 400, 'BAD_REQUEST'],
  ['forged cursor', () => call(server, '/pets?cursor=forged'), 400, 'BAD_REQUEST'],
  ['bad petId', () => call(server, '/pets/0'), 400, 'BAD_REQUEST'],
  ['absent animal', () => call(server, '/pets/9007199254740991'), 404, 'NOT_FOUND'],
  ['malformed JSON', () => postPet(server, '{'), 400, 'BAD_REQUEST'],
  ['invalid field', () => postPet(server, { name: 'Rex', categoryId: '7' }), 400, 'BAD_REQUEST'],
  ['unknown field', () => postPet(server, { name: 'Rex', categoryId: 7, TableName: 'pets' }), 400, 'BAD_REQUEST'],
  ['body too large', () => postPet(server, { name: 'x'.repeat(20_000), categoryId: 7 }), 413, 'PAYLOAD_TOO_LARGE'],
  [
    'wrong media type',
    () => postPet(server, { name: 'Rex', categoryId: 7 }, { headers: { 'Content-Type': 'text/plain' } }),
    415,
    'UNSUPPORTED_MEDIA_TYPE',
  ],
];

describe('every error has exactly the contract Error body, requestId equal to the header, details only on 400', () => {
  for (const [label, send, status, code] of errorCases) {
    it(`${label}: ${status} ${code}`, async () => {
      expectError(seen(await send()), status, code, [server.key]);
    });
  }
});

describe('every response', () => {
  it('successes too carry a JSON Content-Type and a request id', async () => {
    // `call` checks both on every reply; these are the three successes.
    seen(await call(server, '/pets'));
    seen(await postPet(server, { name: 'Rex', categoryId: 7 }));
    seen(await call(server, `/pets/${petId}`));
  });

  it('has its own request id', async () => {
    const replies = await Promise.all(Array.from({ length: 5 }, () => call(server, '/pets')));
    replies.forEach(seen);
    expect(requestIds.length).toBeGreaterThanOrEqual(errorCases.length + 8);
    expect(new Set(requestIds).size).toBe(requestIds.length);
  });
});
