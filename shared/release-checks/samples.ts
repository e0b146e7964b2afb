// The sample requests, for each operation of the route table: one it answers, one it refuses with
// a 400 (and the field the 400 names), and one it answers 404 where a path parameter names a thing.
// The generic checks (generic.ts) are made from them and the route entries, and so are the
// tests' and benchmarks' requests (tools/harness/sample-requests.ts); a new operation without
// samples is a type error (`Record<OperationId, …>`). Here, not in tools/, because the pre-traffic
// hooks run the generic checks against each deployed version.
import type { OperationId, Route } from '../api/routes.ts';

/** One request of an operation: what its route leaves open. */
export interface SampleRequest {
  /** The route's path parameters (e.g. `petId`), filled into its template. */
  readonly pathParameters?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  /** Sent as JSON, with `Content-Type: application/json`. */
  readonly body?: unknown;
}

export interface OperationSamples {
  /**
   * A request the operation answers with its success status. `anyStage`: it is so answered on
   * every stage, a fresh one included, and writes nothing; the release checks then send it and hold
   * its answer to the route entry's `response` schema (checks.ts).
   */
  readonly valid: SampleRequest & { readonly status: number; readonly anyStage: boolean };
  /** A request it refuses with 400 BAD_REQUEST, whose details name `field`. */
  readonly invalid: SampleRequest & { readonly status: 400; readonly field: string };
  /** A well-formed request for something absent: 404 NOT_FOUND. Only where a path parameter names a thing. */
  readonly notFound?: SampleRequest & { readonly status: 404 };
}

/**
 * No animal will have it: ids are handed out from 1 upwards (shared/domain/id-allocator.ts), and
 * this is the largest (schemas.ts, MAX_ID; not imported: the canary's bundle would carry zod).
 */
const ABSENT_PET_ID = String(Number.MAX_SAFE_INTEGER);

export const sampleRequests: Readonly<Record<OperationId, OperationSamples>> = {
  listPets: {
    valid: { query: { limit: '5' }, status: 200, anyStage: true },
    invalid: { query: { limit: '0' }, status: 400, field: 'limit' },
  },
  createPet: {
    // A create would create: its generic refusals are all a release may send it.
    valid: { body: { name: 'Sample', categoryId: 1 }, status: 201, anyStage: false },
    // Refused by validation, before any write: a category that is not an integer.
    invalid: { body: { name: 'Sample', categoryId: 'seven' }, status: 400, field: 'categoryId' },
  },
  getPet: {
    // The id of the first animal a fresh stage creates (e.g. createPet's valid sample): on any
    // stage, its one sure answer is the generic not-found.
    valid: { pathParameters: { petId: '1' }, status: 200, anyStage: false },
    invalid: { pathParameters: { petId: 'abc' }, status: 400, field: 'petId' },
    notFound: { pathParameters: { petId: ABSENT_PET_ID }, status: 404 },
  },
};

/** A route's path below the version path with the sample's parameters filled in, and its query. */
export const samplePath = (r: Route, sample: SampleRequest): string => {
  const path = r.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = sample.pathParameters?.[name];
    if (value === undefined) throw new Error(`the sample of ${r.operationId} has no path parameter ${name}`);
    return encodeURIComponent(value);
  });
  const query = new URLSearchParams(sample.query).toString();
  return query ? `${path}?${query}` : path;
};
