// shared/api — the HTTP contract as data: the route table (this file), the zod schemas
// of every shape (schemas.ts), the typed errors and their fixed texts (errors.ts), and
// the errors API Gateway answers by itself (gateway-responses.ts). It imports only zod:
// the CDK app, the local emulator, the OpenAPI generator and the functions all read it.
//
// The route table: the CDK API, the local server, the OpenAPI document and the typed
// client are all generated from it, so a route exists everywhere or nowhere.

export const API_VERSION_PATH = '/v1';

/**
 * The API's binary media types: API Gateway hands a body of these types to the
 * function as the client's bytes (base64). All types, so that a function can refuse
 * a body that is not UTF-8 rather than receive it with U+FFFD in place of bad bytes.
 */
export const BINARY_MEDIA_TYPES = ['*/*'];

/** Whether a body of `contentType` reaches the function as bytes, as API Gateway matches types. */
export const isBinaryMediaType = (contentType: string | undefined): boolean => {
  const type = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  return BINARY_MEDIA_TYPES.some(
    (pattern) =>
      pattern === '*/*' || pattern === type || (pattern.endsWith('/*') && type.startsWith(pattern.slice(0, -1))),
  );
};

/** The largest request body any route accepts (the functions answer 413 past it). */
export const MAX_BODY_BYTES = 16 * 1024;

export type OperationId = 'listPets' | 'createPet' | 'getPet';

export interface Route {
  readonly operationId: OperationId;
  readonly method: 'GET' | 'POST';
  /** Relative to the version path, in API Gateway's template syntax. */
  readonly path: string;
  /** The function's entry file, relative to the repository root. */
  readonly entry: string;
  readonly summary: string;
  readonly deprecation?: Deprecation;
}

export interface Deprecation {
  /** When the operation was deprecated (RFC 9745 `Deprecation`). */
  readonly since: Date;
  /** When it stops working (RFC 8594 `Sunset`). */
  readonly sunset: Date;
  /** The path, below the version root, of what replaces it. */
  readonly successor: string;
}

export const routes: readonly Route[] = [
  { operationId: 'listPets', method: 'GET', path: '/pets', entry: 'functions/list-pets.ts', summary: 'List animals' },
  {
    operationId: 'createPet',
    method: 'POST',
    path: '/pets',
    entry: 'functions/create-pet.ts',
    summary: 'Add an animal',
  },
  {
    operationId: 'getPet',
    method: 'GET',
    path: '/pets/{petId}',
    entry: 'functions/get-pet.ts',
    summary: 'Get an animal (deprecated: use GET /pets with the status filter)',
    deprecation: {
      since: new Date('2026-11-01T00:00:00Z'),
      sunset: new Date('2030-12-05T00:00:00Z'),
      successor: '/pets',
    },
  },
];

export const route = (operationId: OperationId): Route => routes.find((r) => r.operationId === operationId)!;

export const AUTHORIZER_ENTRY = 'functions/authorizer.ts';

/** The API Gateway resource path of a route, e.g. `/v1/pets/{petId}`. */
export const resourcePath = (route: Route): string => `${API_VERSION_PATH}${route.path}`;
