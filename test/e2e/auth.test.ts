// Authentication and routing, over HTTP: which requests reach an operation at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchRoute } from '../../infra/local/route-matcher.ts';
import { routes } from '../../shared/api/routes.ts';
import type { LocalServer } from '../../tools/harness/local-server.ts';
import { sampleRequests } from '../../tools/harness/sample-requests.ts';
import {
  bearer,
  call,
  callSample,
  createPet,
  disposeServer,
  expectError,
  issueKey,
  keyTool,
  postPet,
  startServer,
  unknownKey,
} from './support.ts';

let server: LocalServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => disposeServer(server));

/** One request per operation, each valid apart from its Authorization header (tools/harness/sample-requests.ts). */
const operations = routes.map(({ operationId }) => ({
  name: operationId,
  send: (authorization: string | null) =>
    callSample(server, operationId, sampleRequests[operationId].valid, { authorization }),
}));

describe('a request without a usable key is 401 on every operation', () => {
  const refused: Array<[string, () => string | null]> = [
    ['no Authorization header', () => null],
    ['Basic credentials', () => `Basic ${Buffer.from('user:password').toString('base64')}`],
    ['Bearer with nothing after it', () => 'Bearer'],
    ['Bearer with only spaces after it', () => 'Bearer    '],
    ['the key without a scheme', () => server.key],
    ['two tokens', () => `Bearer ${server.key} ${server.key}`],
    ['a key and a second credential', () => `Bearer ${server.key}, Basic dXNlcjpwYXNz`],
    ['a well-formed key nobody issued', () => bearer(unknownKey())],
    ['a malformed key (too short)', () => 'Bearer pet_abc123'],
    ['a malformed key (wrong prefix)', () => bearer(server.key.replace(/^pet_/, 'key_'))],
    ['a malformed key (not base62)', () => bearer(`${server.key.slice(0, -1)}!`)],
    [
      'the server key with one character changed',
      () => bearer(`${server.key.slice(0, -1)}${server.key.endsWith('a') ? 'b' : 'a'}`),
    ],
  ];
  for (const [label, authorization] of refused) {
    it(label, async () => {
      for (const operation of operations) {
        const header = authorization();
        const reply = await operation.send(header);
        expectError(reply, 401, 'UNAUTHORIZED', [server.key, ...(header?.match(/pet_\S+/g) ?? [])]);
      }
    });
  }
});

describe('a usable key', () => {
  it('opens every operation', async () => {
    // The samples that read an animal read the first one created.
    await createPet(server, { name: 'Keyed', categoryId: 1 });
    for (const { operationId } of routes) {
      const { valid } = sampleRequests[operationId];
      expect((await callSample(server, operationId, valid)).status, operationId).toBe(valid.status);
    }
  });

  it('is accepted with the scheme name in any case', async () => {
    for (const scheme of ['bearer', 'BEARER', 'bEaReR']) {
      const reply = await call(server, '/pets', { authorization: `${scheme} ${server.key}` });
      expect(reply.status, scheme).toBe(200);
    }
  });

  it('is checked before the request is: a bad body without a key is 401, not 400 or 415', async () => {
    expectError(await postPet(server, '{"name":', { authorization: null }), 401, 'UNAUTHORIZED');
    const wrongType = await call(server, '/pets', {
      method: 'POST',
      authorization: null,
      headers: { 'Content-Type': 'text/plain' },
      body: 'x',
    });
    expectError(wrongType, 401, 'UNAUTHORIZED');
    for (const { operationId } of routes) {
      const reply = await callSample(server, operationId, sampleRequests[operationId].invalid, { authorization: null });
      expectError(reply, 401, 'UNAUTHORIZED');
    }
  });
});

describe('keys from the key tool', () => {
  it('work at once, and are refused at once once revoked', async () => {
    const { key, keyId } = await issueKey(server.dataDir, 'e2e auth');
    expect((await call(server, '/pets', { authorization: bearer(key) })).status).toBe(200);

    const revoked = await keyTool(server.dataDir, 'revoke', keyId);
    expect(revoked.code, revoked.stderr).toBe(0);
    for (const operation of operations) expectError(await operation.send(bearer(key)), 401, 'UNAUTHORIZED', [key]);

    // Revoking one key leaves the others alone.
    expect((await call(server, '/pets')).status).toBe(200);
  });

  it('revoking an unknown key id fails', async () => {
    const result = await keyTool(server.dataDir, 'revoke', 'key_doesNotExist');
    expect(result.code).not.toBe(0);
  });
});

describe("routing: only the route table's operations exist, and anything else is 404 before authentication", () => {
  const candidates: Array<[string, string]> = [
    ['GET', '/'],
    ['GET', '/pets'], // outside /v1
    ['GET', '/pets/1'],
    ['GET', '/v2/pets'],
    ['GET', '/v1'],
    ['GET', '/v1/'],
    ['GET', '/v1/pets/'],
    ['GET', '/v1/pet'],
    ['GET', '/v1/pets/1/extra'],
    ['GET', '/v1/store/orders'],
    ['GET', '/v1/categories'],
    ['GET', '/V1/pets'],
    ['GET', '/v1/Pets'],
    ['DELETE', '/v1/pets'],
    ['PUT', '/v1/pets'],
    ['PATCH', '/v1/pets'],
    ['OPTIONS', '/v1/pets'],
    ['POST', '/v1/pets/1'],
    ['PUT', '/v1/pets/1'],
    ['DELETE', '/v1/pets/1'],
    ['PATCH', '/v1/pets/1'],
  ];
  // Those the route table does not have (it may one day have some of these).
  const unknownRoutes = candidates.filter(([method, path]) => !matchRoute(method, path));
  for (const [method, path] of unknownRoutes) {
    it(`${method} ${path}`, async () => {
      const target = new URL(path, server.baseUrl);
      const body = ['POST', 'PUT', 'PATCH'].includes(method) ? '{"name":"Rex","categoryId":1}' : undefined;
      const headers: Record<string, string> = body ? { 'Content-Type': 'application/json' } : {};
      // With no key, a bad key and a good key alike: the route decides first.
      for (const authorization of [null, 'Bearer nonsense', bearer(server.key)]) {
        const reply = await call(server, target, { method, authorization, headers, ...(body && { body }) });
        expectError(reply, 404, 'NOT_FOUND');
      }
    });
  }
});
