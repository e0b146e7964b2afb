import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import * as z from 'zod/mini';
import { clientTypes, SCHEMA_FILE } from '../../client/generate.ts';
import { answers, route, routes } from '../../shared/api/routes.ts';
import { openApiDocument } from '../../tools/openapi.ts';
import { parameters } from '../../tools/openapi-parts.ts';

const document = openApiDocument() as any;

describe('openapi.json', () => {
  test('is the document the code generates (else run `npm run openapi`)', () => {
    const committed = readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8');
    // `npm run openapi` writes console.log's output: the document, two-space indented, and a newline.
    const generated = `${JSON.stringify(document, null, 2)}\n`;
    if (committed !== generated) {
      expect.fail(
        'openapi.json is stale: it differs from tools/openapi.ts. Run `npm run openapi` and commit the result.',
      );
    }
  });
});

describe('client/schema.d.ts', () => {
  test('is what openapi-typescript makes of the document the code generates (else run `npm run openapi`)', async () => {
    const committed = readFileSync(SCHEMA_FILE, 'utf8');
    if (committed !== (await clientTypes(document))) {
      expect.fail('client/schema.d.ts is stale: run `npm run openapi` and commit the result.');
    }
  });

  test('changes with the schemas: a new field of Pet is a new property of its type', async () => {
    const changed = structuredClone(document);
    changed.components.schemas.Pet.properties.nickname = { type: 'string' };
    const types = await clientTypes(changed);
    expect(types).not.toBe(await clientTypes(document));
    expect(types).toMatch(/Pet: \{[^}]*nickname\?: string;/);
  });
});

// OpenAPI 3.1, Parameter Object: `required` "Determines whether this parameter is mandatory";
// for a path parameter it must be true (https://spec.openapis.org/oas/v3.1.0#parameter-object).
test('a query parameter is required exactly when its schema needs it (a default makes it optional); a path one always', () => {
  const shape = { needed: z.string(), maybe: z.optional(z.string()), defaulted: z._default(z.string(), 'x') };
  const examples = { needed: 'a', maybe: 'b', defaulted: 'c' };
  expect(parameters(shape, 'query', examples).map((p) => [p.name, p.required])).toEqual([
    ['needed', true],
    ['maybe', false],
    ['defaulted', false],
  ]);
  expect(parameters({ id: z.string() }, 'path', { id: '1' })[0]?.required).toBe(true);
});

describe('the OpenAPI document', () => {
  const operations = Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, ...operation })),
  );

  test('is OpenAPI 3.1.0, version 1.0.0, behind a bearer scheme for every operation', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.0.0');
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.security).toEqual([{ bearerAuth: [] }]);
  });

  test("has exactly the route table's operations, with their operationIds; the deprecated ones marked", () => {
    expect(
      operations.map(({ method, path, operationId, deprecated }) => [method, path, operationId, deprecated ?? false]),
    ).toEqual(routes.map((r) => [r.method.toLowerCase(), r.path, r.operationId, r.deprecation !== undefined]));
  });

  test('each operation answers exactly the statuses its route entry implies (shared/api/routes.ts, answers)', () => {
    for (const operation of operations)
      expect(Object.keys(operation.responses).map(Number), operation.operationId).toEqual(
        answers(route(operation.operationId)),
      );
  });

  test('every response has a JSON body given by a schema reference that exists, but a 204 (no content)', () => {
    for (const operation of operations) {
      for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
        if (status === '204') {
          expect(response.content, `${operation.operationId} ${status}`).toBeUndefined();
          continue;
        }
        const ref: string | undefined = response.content?.['application/json']?.schema?.$ref;
        expect(ref, `${operation.operationId} ${status}`).toMatch(/^#\/components\/schemas\/\w+$/);
        expect(document.components.schemas[ref!.split('/').at(-1)!], ref).toBeDefined();
        if (Number(status) >= 400) expect(ref).toBe('#/components/schemas/Error');
      }
    }
  });

  test('the schemas say what the contract decided', () => {
    const { NewPet, Pet, PetStatus, Error: ErrorSchema } = document.components.schemas;
    expect(PetStatus.enum).toEqual(['available', 'pending', 'sold']);
    expect(NewPet.additionalProperties).toBe(false);
    expect(NewPet.required).toEqual(['name', 'categoryId']);
    expect(NewPet.properties.status.default).toBe('available');
    expect(NewPet.properties.categoryId).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
    });
    // The name's pattern is the contract's rule on the text as sent: something besides white space,
    // and no control character (U+0000–U+001F, U+007F–U+009F) once the white space around it is trimmed.
    const name = new RegExp(NewPet.properties.name.pattern, 'u');
    for (const good of ['R', 'Rex the dog', ' \t\r\n Rex \n', 'Rex \u00a0 ~ \u00a1', 'Rex 🐕'])
      expect(name.test(good), JSON.stringify(good)).toBe(true);
    for (const bad of ['', ' \t\n', 'Rex\u001b[31m', 'Re\tx', 'Re\u0000x', 'Rex\u007f', 'Rex\u009b', '\u0085Rex'])
      expect(name.test(bad), JSON.stringify(bad)).toBe(false);
    expect(Pet.required).toEqual(expect.arrayContaining(['id', 'name', 'categoryId', 'status']));
    expect(ErrorSchema.required).toEqual(expect.arrayContaining(['code', 'message', 'status', 'requestId']));
    const limit = operations[0].parameters.find((p: any) => p.name === 'limit');
    expect(limit).toMatchObject({
      in: 'query',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    });
  });

  test('createPet documents safe retries: Idempotency-Key, Idempotent-Replayed, 409 and 422; 429 and 409 carry Retry-After', () => {
    const createPet = operations.find((o) => o.operationId === 'createPet')!;
    const key = createPet.parameters.find((p: any) => p.name === 'Idempotency-Key');
    expect(key).toMatchObject({ in: 'header', required: false, schema: { type: 'string' } });
    // The pattern clients can check a bare key with is the one the service checks it with.
    const pattern = new RegExp(key.schema.pattern);
    for (const good of ['a', '~'.repeat(255), 'order-42/retry']) expect(pattern.test(good), good).toBe(true);
    for (const bad of ['', 'a b', '~'.repeat(256), 'caf\u00e9']) expect(pattern.test(bad), bad).toBe(false);
    expect(createPet.responses['201'].headers['Idempotent-Replayed'].schema).toEqual({
      type: 'string',
      enum: ['true'],
    });
    for (const status of ['409', '422', '429']) expect(createPet.responses[status], status).toBeDefined();
    for (const status of ['409', '429'])
      expect(createPet.responses[status].headers['Retry-After'], status).toBeDefined();
  });
});
