// The typed client (client/) against the local stage: the three operations, paging by
// the Link header, a safe retry with Idempotency-Key, and Error bodies, each typed by the
// generated schema.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  createPetStoreClient,
  type ErrorBody,
  listPetPages,
  type Pet,
  type PetStoreClient,
  PetStoreError,
  type paths,
  rateLimitPolicies,
} from '../../client/index.ts';
import type { LocalServer } from '../../tools/harness/local-server.ts';
import { disposeServer, expectAnimal, startServer, unknownKey } from './support.ts';

let server: LocalServer;
let client: PetStoreClient;
beforeAll(async () => {
  server = await startServer();
  client = createPetStoreClient({ baseUrl: server.baseUrl, apiKey: server.key });
});
afterAll(() => disposeServer(server));

const create = async (name: string, status?: Pet['status']): Promise<Pet> => {
  const { data, error, response } = await client.POST('/pets', { body: { name, categoryId: 3, status } });
  expect(error, JSON.stringify(error)).toBeUndefined();
  expect(response.status).toBe(201);
  expectAnimal(data);
  return data!;
};

describe('the typed client', () => {
  it("reads the key's limits from RateLimit-Policy, typed as the document declares it", async () => {
    const { response } = await client.GET('/pets', { params: { query: { limit: 1 } } });
    const policies = rateLimitPolicies(response);
    // npm start's defaults (README: PETSTORE_KEY_RATE, _BURST; no quota).
    expect(policies).toEqual([
      { name: 'burst', quota: 2000, windowSeconds: 1 },
      { name: 'steady', quota: 1000, windowSeconds: 1 },
    ]);
    type ListHeaders = NonNullable<paths['/pets']['get']['responses'][200]['headers']>;
    expectTypeOf<ListHeaders['RateLimit-Policy']>().toEqualTypeOf<string | undefined>();
  });

  it('createPet: 201 with the animal, typed as Pet, and its Location', async () => {
    const { data, response } = await client.POST('/pets', { body: { name: '  Rex ', categoryId: 7 } });
    expectTypeOf(data).toEqualTypeOf<Pet | undefined>();
    expect(response.status).toBe(201);
    expect(data).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: 7, status: 'available' });
    expect(new URL(response.headers.get('location')!, response.url).href).toBe(`${server.baseUrl}/pets/${data!.id}`);
  });

  it('getPet: the same animal, with the deprecation headers', async () => {
    const pet = await create('Old Faithful', 'pending');
    const { data, response } = await client.GET('/pets/{petId}', { params: { path: { petId: pet.id } } });
    expect(data).toEqual(pet);
    expect(response.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(response.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
  });

  it('listPets: follows the Link header page by page to every matching animal once', async () => {
    const sold = [];
    for (const name of ['a', 'b', 'c', 'd', 'e']) sold.push(await create(name, 'sold'));
    const pages: Pet[][] = [];
    for await (const page of listPetPages(client, { status: 'sold', limit: 2 })) pages.push(page);
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(pages.flat()).toEqual(sold);
    // The generator stopped because the last page had no `next` link.
  });

  it('createPet with an Idempotency-Key: a retry replays the first 201 and creates nothing', async () => {
    const header = { 'Idempotency-Key': randomUUID() };
    const body = { name: 'Only once', categoryId: 9, status: 'pending' } as const;
    const first = await client.POST('/pets', { params: { header }, body });
    const retry = await client.POST('/pets', {
      params: { header },
      body: { categoryId: 9, status: 'pending', name: 'Only once' },
    });
    expect(first.response.status).toBe(201);
    expect(first.response.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.response.status).toBe(201);
    expect(retry.response.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.data).toEqual(first.data);
    expect(retry.response.headers.get('location')).toBe(first.response.headers.get('location'));
    const pending: Pet[] = [];
    for await (const page of listPetPages(client, { status: 'pending' })) pending.push(...page);
    expect(pending.filter((pet) => pet.name === 'Only once')).toEqual([first.data]);

    // The same key with another body: a typed 422 error.
    const other = await client.POST('/pets', { params: { header }, body: { ...body, name: 'Twice' } });
    expect(other.response.status).toBe(422);
    expect(other.error).toMatchObject({ code: 'UNPROCESSABLE_ENTITY', status: 422 });
  });

  it('an error answer is { error } with the Error body, typed, and its code', async () => {
    // @ts-expect-error: the generated types require categoryId; the server refuses the body all the same.
    const { data, error, response } = await client.POST('/pets', { body: { name: 'Rex' } });
    expectTypeOf(error).toEqualTypeOf<ErrorBody | undefined>();
    expect(data).toBeUndefined();
    expect(response.status).toBe(400);
    expect(error).toMatchObject({ code: 'BAD_REQUEST', status: 400, details: [{ field: 'categoryId' }] });
    expect(error!.requestId).toBe(response.headers.get('x-amzn-requestid'));

    const missing = await client.GET('/pets/{petId}', { params: { path: { petId: 9_000_000 } } });
    expect(missing.error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });

  it('a refused key is a 401 UNAUTHORIZED error, and a failed page throws PetStoreError', async () => {
    const stranger = createPetStoreClient({ baseUrl: server.baseUrl, apiKey: unknownKey() });
    const { error, response } = await stranger.GET('/pets');
    expect(error).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);

    const pages = listPetPages(client, { limit: 0 });
    const thrown = await pages.next().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(thrown).toBeInstanceOf(PetStoreError);
    expect((thrown as PetStoreError).body).toMatchObject({ code: 'BAD_REQUEST', details: [{ field: 'limit' }] });
  });
});

describe("the README's example (client/example.ts)", () => {
  it('runs against the base URL and key it is given', async () => {
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        ['client/example.ts'],
        { env: { ...process.env, PETSTORE_BASE_URL: server.baseUrl, PETSTORE_KEY: server.key } },
        (error, stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, stdout, stderr }),
      ),
    );
    expect(run.code, run.stderr).toBe(0);
    // Each line says what it shows (a newcomer could not tell what `30 available` or `true true` meant).
    const lines = run.stdout.trimEnd().split('\n');
    for (const line of lines) expect(line).toMatch(/^(created|retried|listed|got)\b[^:]*: /);
    const id = /^created: id (\d+), status available$/m.exec(run.stdout)?.[1]; // the animal it created
    expect(id, run.stdout).toBeDefined();
    // The safe retry answered the first 201 again.
    expect(run.stdout).toMatch(/^retried with the same Idempotency-Key: same animal true, Idempotent-Replayed: true$/m);
    expect(run.stdout).toMatch(new RegExp(`^listed \\(available, a page\\): .*\\b${id} Rex\\b`, 'm'));
    // getPet, with its Sunset header.
    expect(run.stdout).toContain(`got id ${id} (deprecated): Rex, Sunset: Thu, 05 Dec 2030 00:00:00 GMT`);
  });
});
