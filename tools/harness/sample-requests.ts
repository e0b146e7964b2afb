// The shared table of sample requests: for each operation of the route table, a request it
// answers, one it refuses with a 400 (and the field the 400 names), and one it answers 404
// where it has a path parameter. Tests and benchmarks build their events and HTTP requests
// from here rather than writing each operation's requests again, and a new operation without
// samples is a type error (`Record<OperationId, …>`).
import { randomUUID } from 'node:crypto';
import { API_VERSION_PATH, type OperationId, type Route, route } from '../../shared/api/routes.ts';
import { MAX_ID } from '../../shared/api/schemas.ts';
import { proxyEvent } from '../../shared/lambda/proxy-event.ts';
import type { RequestSpec } from './http-client.ts';

/** One request of an operation: what its route leaves open. */
export interface SampleRequest {
  /** The route's path parameters (e.g. `petId`), filled into its template. */
  readonly pathParameters?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  /** Sent as JSON, with `Content-Type: application/json`. */
  readonly body?: unknown;
}

export interface OperationSamples {
  /** A request the operation answers with its success status. */
  readonly valid: SampleRequest & { readonly status: number };
  /** A request it refuses with 400 BAD_REQUEST, whose details name `field`. */
  readonly invalid: SampleRequest & { readonly status: 400; readonly field: string };
  /** A well-formed request for something absent: 404 NOT_FOUND. Only where a path parameter names a thing. */
  readonly notFound?: SampleRequest & { readonly status: 404 };
}

/** No animal will have it: ids are handed out from 1 upwards (shared/domain/id-allocator.ts). */
const ABSENT_PET_ID = String(MAX_ID);

export const sampleRequests: Readonly<Record<OperationId, OperationSamples>> = {
  listPets: {
    valid: { query: { limit: '5' }, status: 200 },
    invalid: { query: { limit: '0' }, status: 400, field: 'limit' },
  },
  createPet: {
    valid: { body: { name: 'Sample', categoryId: 1 }, status: 201 },
    // Refused by validation, before any write: a category that is not an integer.
    invalid: { body: { name: 'Sample', categoryId: 'seven' }, status: 400, field: 'categoryId' },
  },
  getPet: {
    // The id of the first animal a fresh stage creates (e.g. createPet's valid sample).
    valid: { pathParameters: { petId: '1' }, status: 200 },
    invalid: { pathParameters: { petId: 'abc' }, status: 400, field: 'petId' },
    notFound: { pathParameters: { petId: ABSENT_PET_ID }, status: 404 },
  },
};

/** A route's path below the version path with its parameters filled in, and the sample's query. */
const samplePath = (r: Route, sample: SampleRequest): string => {
  const path = r.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = sample.pathParameters?.[name];
    if (value === undefined) throw new Error(`the sample of ${r.operationId} has no path parameter ${name}`);
    return encodeURIComponent(value);
  });
  const query = new URLSearchParams(sample.query).toString();
  return query ? `${path}?${query}` : path;
};

/**
 * A sample as an HTTP request (http-client.ts's spec), its path below the version path
 * (`/pets/1`) or, with `versioned`, from the root (`/v1/pets/1`).
 */
export const sampleHttpRequest = (
  operationId: OperationId,
  sample: SampleRequest,
  options: { versioned?: boolean; headers?: Record<string, string> } = {},
): RequestSpec & { body?: string } => {
  const r = route(operationId);
  const path = samplePath(r, sample);
  return {
    method: r.method,
    path: options.versioned ? `${API_VERSION_PATH}${path}` : path,
    headers: {
      ...(sample.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...options.headers,
    },
    ...(sample.body === undefined ? {} : { body: JSON.stringify(sample.body) }),
  };
};

const STAGE = 'staging';
const DOMAIN = 'abc123.execute-api.us-east-1.amazonaws.com';

/**
 * A sample as the REST proxy event API Gateway gives the operation's function on a deployed
 * stage (shared/lambda/proxy-event.ts, the local gateway's builder), with a regional stage's
 * headers besides `headers`, from the caller the authorizer named `keyId`.
 */
export const sampleEvent = (
  operationId: OperationId,
  sample: SampleRequest,
  { keyId = 'key_Sample0001', headers = {} }: { keyId?: string; headers?: Record<string, string> } = {},
) => {
  const spec = sampleHttpRequest(operationId, sample, {
    versioned: true,
    headers: {
      Accept: '*/*',
      Authorization: 'Bearer (not read by the function)',
      Host: DOMAIN,
      'User-Agent': 'curl/8.5.0',
      'X-Amzn-Trace-Id': 'Root=1-67891233-abcdef012345678912345678',
      'X-Forwarded-For': '203.0.113.7',
      'X-Forwarded-Port': '443',
      'X-Forwarded-Proto': 'https',
      ...headers,
    },
  });
  const body = spec.body ?? null;
  const sent = { ...spec.headers, ...(body !== null && { 'Content-Length': String(Buffer.byteLength(body)) }) };
  return proxyEvent(
    {
      ...{ url: new URL(spec.path, `https://${DOMAIN}`), headers: Object.entries(sent), body },
      ...{ isBase64Encoded: false, sourceIp: '203.0.113.7', protocol: 'HTTP/1.1', domainName: DOMAIN },
    },
    { route: route(operationId), pathParameters: { ...sample.pathParameters } },
    {
      ...{ accountId: '000000000000', apiId: 'abc123', stage: STAGE, requestId: randomUUID() },
      ...{ identity: { principalId: keyId, context: { keyId } }, clientPathPrefix: `/${STAGE}` },
    },
  );
};
