// The reference shows what the contract promises: every example is valid against its own
// schema in the document (JSON Schema 2020-12, by ajv), request examples are accepted by
// the service's own validation, and every response names the headers the contract gives it.
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { describe, expect, test } from 'vitest';
import { ErrorCode, NewPet } from '../../shared/api/schemas.ts';
import { openApiDocument } from '../../tools/openapi.ts';

const document = openApiDocument() as any;
const DOCUMENT_ID = 'openapi.json';

// The whole document is one schema resource, so that `#/components/schemas/…` resolves in it.
// `strict: false`: OpenAPI's own keywords (paths, example…) sit beside the schemas.
const ajv = new Ajv2020({ strict: false, allErrors: true });
// The document's formats with their meaning (uuid, uri-reference, and OpenAPI's int32 and
// int64), so that an example breaking one fails here; unknown, ajv would warn and ignore them.
ajvFormats.default(ajv); // a CommonJS module: its plugin is its `default` export
ajv.addSchema(document, DOCUMENT_ID);

/** A validator for the schema at `pointer` (a JSON pointer into the document). */
const validatorAt = (pointer: string) => ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
const pointerToken = (token: string) => token.replaceAll('~', '~0').replaceAll('/', '~1');

interface Sample {
  where: string;
  /** JSON pointer of the schema the value must match. */
  schema: string;
  value: unknown;
}

/** Every example of the document: media types', headers' and parameters', with their schema's pointer. */
const samples = (): Sample[] => {
  const found: Sample[] = [];
  const fromExamples = (where: string, schemaPointer: string, holder: any) => {
    if (holder.example !== undefined) found.push({ where, schema: schemaPointer, value: holder.example });
    for (const [name, example] of Object.entries<any>(holder.examples ?? {})) {
      found.push({ where: `${where} (${name})`, schema: schemaPointer, value: example.value });
    }
  };
  for (const [path, methods] of Object.entries<any>(document.paths)) {
    for (const [method, operation] of Object.entries<any>(methods)) {
      const base = `/paths/${pointerToken(path)}/${method}`;
      const name = operation.operationId;
      for (const [i, parameter] of (operation.parameters ?? []).entries()) {
        fromExamples(`${name} parameter ${parameter.name}`, `${base}/parameters/${i}/schema`, parameter);
      }
      for (const [type, media] of Object.entries<any>(operation.requestBody?.content ?? {})) {
        fromExamples(`${name} request body`, `${base}/requestBody/content/${pointerToken(type)}/schema`, media);
      }
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        const at = `${base}/responses/${status}`;
        for (const [header, definition] of Object.entries<any>(response.headers ?? {})) {
          fromExamples(`${name} ${status} ${header}`, `${at}/headers/${pointerToken(header)}/schema`, definition);
        }
        for (const [type, media] of Object.entries<any>(response.content ?? {})) {
          fromExamples(`${name} ${status} body`, `${at}/content/${pointerToken(type)}/schema`, media);
        }
      }
    }
  }
  return found;
};

const operations = Object.values<any>(document.paths).flatMap((methods) => Object.values<any>(methods));
const operation = (id: string) => operations.find((o) => o.operationId === id);

describe('examples in the OpenAPI document', () => {
  const all = samples();

  test('are there: every response body and every response header has at least one', () => {
    expect(all.length).toBeGreaterThan(60);
    for (const { operationId, responses } of operations) {
      for (const [status, response] of Object.entries<any>(responses)) {
        for (const media of Object.values<any>(response.content ?? {})) {
          expect(Object.keys(media.examples ?? {}).length, `${operationId} ${status}`).toBeGreaterThan(0);
        }
        for (const [header, definition] of Object.entries<any>(response.headers ?? {})) {
          expect(definition.example, `${operationId} ${status} ${header}`).toBeDefined();
        }
      }
    }
  });

  test.each(all.map((sample) => [sample.where, sample] as const))('%s is valid against its schema', (_, sample) => {
    const validate = validatorAt(sample.schema);
    expect(validate(sample.value), JSON.stringify(validate.errors)).toBe(true);
  });

  test('the schemas are strict enough to refuse a wrong example', () => {
    expect(validatorAt('/components/schemas/Pet')({ id: 1, name: 'Rex', categoryId: 3 })).toBe(false);
    expect(
      validatorAt('/components/schemas/Error')({ code: 'TEAPOT', message: 'x', status: 418, requestId: 'r' }),
    ).toBe(false);
  });

  test('request body examples are accepted by the service’s own validation', () => {
    const examples = Object.values<any>(operation('createPet').requestBody.content['application/json'].examples);
    expect(examples.length).toBeGreaterThan(0);
    for (const { value } of examples) expect(NewPet.safeParse(value).success, JSON.stringify(value)).toBe(true);
  });

  test('an error example carries the code its response leads with, and the response’s status', () => {
    for (const { operationId, responses } of operations) {
      for (const [status, response] of Object.entries<any>(responses)) {
        if (Number(status) < 400) continue;
        const code = /^`([A-Z_]+)`/.exec(response.description)?.[1];
        expect(ErrorCode.options, `${operationId} ${status}`).toContain(code);
        for (const { value } of Object.values<any>(response.content['application/json'].examples)) {
          expect(value, `${operationId} ${status}`).toMatchObject({ code, status: Number(status) });
        }
      }
    }
  });
});

describe('headers the contract gives each response', () => {
  test('x-amzn-RequestId on every response', () => {
    for (const { operationId, responses } of operations) {
      for (const [status, response] of Object.entries<any>(responses)) {
        expect(response.headers, `${operationId} ${status}`).toHaveProperty('x-amzn-RequestId');
      }
    }
  });

  test('Link (rel="next") on a listing, Location on a create', () => {
    expect(operation('listPets').responses['200'].headers.Link.example).toMatch(
      /^<[^>]*[?&]cursor=[^>]+>; rel="next"$/,
    );
    expect(operation('createPet').responses['201'].headers).toHaveProperty('Location');
  });

  test('Deprecation, Sunset and the successor Link on every getPet answer of the function', () => {
    for (const status of ['200', '400', '404']) {
      const { headers } = operation('getPet').responses[status];
      expect(Object.keys(headers), status).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link']));
      expect(headers.Link.example).toMatch(/rel="successor-version"$/);
    }
  });

  test('WWW-Authenticate on 401; Retry-After on 429 and 503', () => {
    for (const { operationId, responses } of operations) {
      expect(responses['401'].headers, operationId).toHaveProperty('WWW-Authenticate');
      expect(responses['429'].headers, operationId).toHaveProperty('Retry-After');
      expect(responses['503'].headers, operationId).toHaveProperty('Retry-After');
    }
  });

  test('every error code of the Error body is explained in the reference’s Errors table', () => {
    for (const code of ErrorCode.options) expect(document.info.description).toMatch(new RegExp(`\\| \`${code}\` \\|`));
  });
});
