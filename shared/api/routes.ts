// shared/api — the HTTP contract as data: the route table (this file), the zod schemas
// of every shape (schemas.ts), the typed errors and their fixed texts (errors.ts), and
// the errors API Gateway answers by itself (gateway-responses.ts). It imports only zod:
// the CDK app, the local emulator, the OpenAPI generator and the functions all read it.
//
// The route table: the CDK API, the local server, the OpenAPI document and the typed
// client are all generated from it, so a route exists everywhere or nowhere.

import type { BodySchemaName, QuerySchemaName, ResponseSchemaName } from './schemas.ts';

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

/** What a key may do: `write` every operation, `read` only the operations marked `read`. */
export const KEY_SCOPES = ['read', 'write'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

/** Whether a key of `keyScope` may call an operation open to `operationScope`. */
export const scopeAllows = (keyScope: KeyScope, operationScope: KeyScope): boolean =>
  keyScope === 'write' || operationScope === 'read';

/**
 * The DynamoDB calls a function makes, as IAM and CloudWatch name them (plain strings: this
 * room imports no SDK). The IAM grants (infra/constructs/functions.ts) and the tables' alarms
 * (infra/monitoring/alarms.ts) both read them from here.
 */
export type DynamoDBAction = 'GetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'Query' | 'Scan';

export interface TableCalls {
  /** The table's name in shared/dynamodb/tables.ts (infra's TableName checks it). */
  readonly table: 'pets' | 'counters' | 'idempotency' | 'keys';
  /** An index of the table instead of the table itself. */
  readonly index?: string;
  readonly actions: readonly DynamoDBAction[];
}

/** One operation and every fact about it that is not its handler: the rest is derived from these. */
interface RouteEntry {
  readonly operationId: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Relative to the version path, in API Gateway's template syntax; a `{parameter}` names a thing (404 when absent). */
  readonly path: string;
  /** The function's entry file, relative to the repository root. */
  readonly entry: string;
  readonly summary: string;
  /** The least scope of key that may call it: a `write` key may call every operation, a `read` key the `read` ones. */
  readonly scope: KeyScope;
  /** It reads query parameters of this schema (shared/api/schemas.ts, querySchemas): a malformed one is a 400. */
  readonly query?: QuerySchemaName;
  /** It takes a JSON body of this schema (shared/api/schemas.ts, bodySchemas): 400, 413 and 415 are then its answers too. */
  readonly body?: BodySchemaName;
  /**
   * What its handler answers beyond the generic answers (`answers` below): its success status
   * first (204: no content), then its own refusals.
   */
  readonly statuses: readonly [success: 200 | 201 | 204, ...refusals: number[]];
  /** Its success body's schema (shared/api/schemas.ts, responseSchemas); absent exactly for a 204. */
  readonly response?: ResponseSchemaName;
  /** The DynamoDB calls its handler makes, per table or index: its IAM grants and the tables' alarms. */
  readonly dynamodb: readonly TableCalls[];
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

const ENTRIES = [
  {
    operationId: 'listPets',
    method: 'GET',
    path: '/pets',
    entry: 'functions/list-pets.ts',
    summary: 'List animals',
    scope: 'read',
    query: 'ListPetsQuery',
    statuses: [200],
    response: 'Pets',
    dynamodb: [
      { table: 'pets', index: 'byStatusShard', actions: ['Query'] },
      { table: 'pets', actions: ['Scan'] },
      // The most shards any writer used (shared/dynamodb/shard-count.ts), twice a second at most.
      { table: 'counters', actions: ['GetItem'] },
    ],
  },
  {
    operationId: 'createPet',
    method: 'POST',
    path: '/pets',
    entry: 'functions/create-pet.ts',
    summary: 'Add an animal',
    scope: 'write',
    body: 'NewPet',
    // An Idempotency-Key still in flight, or reused with another body.
    statuses: [201, 409, 422],
    response: 'Pet',
    dynamodb: [
      { table: 'pets', actions: ['PutItem'] },
      { table: 'counters', actions: ['UpdateItem'] },
      // Powertools' persistence layer: take, read, complete and (on failure) delete a record.
      { table: 'idempotency', actions: ['PutItem', 'GetItem', 'UpdateItem', 'DeleteItem'] },
    ],
  },
  {
    operationId: 'getPet',
    method: 'GET',
    path: '/pets/{petId}',
    entry: 'functions/get-pet.ts',
    summary: 'Get an animal (deprecated: use GET /pets with the status filter)',
    scope: 'read',
    statuses: [200],
    response: 'Pet',
    dynamodb: [{ table: 'pets', actions: ['GetItem'] }],
    deprecation: {
      since: new Date('2026-11-01T00:00:00Z'),
      sunset: new Date('2030-12-05T00:00:00Z'),
      successor: '/pets',
    },
  },
] as const satisfies readonly RouteEntry[];

/** The operations, from the table: a name used anywhere else must be one of these. */
export type OperationId = (typeof ENTRIES)[number]['operationId'];
export type Route = RouteEntry & { readonly operationId: OperationId };
/** The operations a read key may call. */
export type ReadOperationId = Extract<(typeof ENTRIES)[number], { scope: 'read' }>['operationId'];
export const routes: readonly Route[] = ENTRIES;

export const route = (operationId: OperationId): Route => routes.find((r) => r.operationId === operationId)!;

/** The authorizer: the one function no route names, and the DynamoDB calls it makes. */
const authorizer = {
  entry: 'functions/authorizer.ts',
  dynamodb: [
    { table: 'keys', actions: ['GetItem'] },
    // The last-use record (keys-repository.ts, recordUse); infra narrows it to that attribute.
    { table: 'keys', actions: ['UpdateItem'] },
  ],
} as const satisfies { entry: string; dynamodb: readonly TableCalls[] };

/** Every function of the API: one per operation, and the authorizer. */
export type FunctionName = OperationId | 'authorizer';
export const FUNCTION_NAMES: readonly FunctionName[] = [...routes.map((r) => r.operationId), 'authorizer'];

/** The DynamoDB calls of each function. */
export const dynamodbCalls = (name: FunctionName): readonly TableCalls[] =>
  name === 'authorizer' ? authorizer.dynamodb : route(name).dynamodb;

/** The path parameters of a route, in its template's order: `{petId}` → `petId`. */
export const pathParameters = (r: Route): string[] => [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);

/** The answers every operation may give whatever it is: the gateway's refusals and faults, and ours. */
const COMMON_STATUSES = [401, 429, 500, 502, 503, 504] as const;

/**
 * Every status an operation answers, ascending: its own (`statuses`), and the generic ones its
 * entry implies: 400 for any input, 403 for a `write` operation (a read key's call), 404 for a
 * path parameter, 413 and 415 for a body, and the common ones.
 */
export const answers = (r: Route): number[] => {
  const input = r.query !== undefined || r.body !== undefined || pathParameters(r).length > 0;
  return [
    ...r.statuses,
    ...(input ? [400] : []),
    ...(r.scope === 'write' ? [403] : []),
    ...(pathParameters(r).length > 0 ? [404] : []),
    ...(r.body !== undefined ? [413, 415] : []),
    ...COMMON_STATUSES,
  ].sort((a, b) => a - b);
};

export const AUTHORIZER_ENTRY = authorizer.entry;

/** The API Gateway resource path of a route, e.g. `/v1/pets/{petId}`. */
export const resourcePath = (route: Route): string => `${API_VERSION_PATH}${route.path}`;
