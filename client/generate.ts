// Writes client/schema.d.ts, the client's types, from the committed openapi.json with
// openapi-typescript. `npm run openapi` runs it right after writing openapi.json; the
// freshness test (test/unit/openapi.test.ts) compares the committed file with clientTypes().
// It lives in client/ because openapi-typescript needs TypeScript 5's compiler API, which
// the client's package.json brings; the project's own TypeScript 7 has none.
import { readFileSync, writeFileSync } from 'node:fs';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';

export const OPENAPI_JSON = new URL('../openapi.json', import.meta.url);
export const SCHEMA_FILE = new URL('./schema.d.ts', import.meta.url);

const HEADER =
  '// Generated from openapi.json by openapi-typescript (client/generate.ts, `npm run openapi`): do not edit.\n\n';

/** The TypeScript types of `document`: paths, operations and components, as openapi-fetch reads them. */
export const clientTypes = async (document: object): Promise<string> => {
  // A field with a default (NewPet.status) stays optional: the default is the server's to apply.
  const ast = await openapiTS(document as OpenAPI3, { defaultNonNullable: false });
  return HEADER + astToString(ast);
};

if (import.meta.main) {
  writeFileSync(SCHEMA_FILE, await clientTypes(JSON.parse(readFileSync(OPENAPI_JSON, 'utf8'))));
}
