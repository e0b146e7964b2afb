// The typed client of the Pet Store API: openapi-fetch over the types that openapi-typescript
// generates from openapi.json (schema.d.ts). Each call answers `{ data }` or `{ error }`, both
// typed by the operation's responses in the document; see README.md beside this file.
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths } from './schema.d.ts';

export type Pet = components['schemas']['Pet'];
export type NewPet = components['schemas']['NewPet'];
export type PetStatus = components['schemas']['PetStatus'];
export type ErrorBody = components['schemas']['Error'];
export type ListPetsQuery = NonNullable<operations['listPets']['parameters']['query']>;
export type PetStoreClient = Client<paths>;
export type { paths };

export interface PetStoreClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** The stage's base address, ending in `/v1` (`npm start` prints the local one). */
  baseUrl: string;
  /** An API key (`pet_…`), sent as `Authorization: Bearer <key>` on every request. */
  apiKey: string;
}

export const createPetStoreClient = ({ baseUrl, apiKey, headers, ...options }: PetStoreClientOptions): PetStoreClient =>
  createClient<paths>({ ...options, baseUrl, headers: { ...headers, Authorization: `Bearer ${apiKey}` } });

/** An answer with the Error body, as an exception (thrown where a call cannot return `{ error }`). */
export class PetStoreError extends Error {
  readonly body: ErrorBody;
  readonly response: Response;
  constructor(body: ErrorBody, response: Response) {
    super(`${body.status} ${body.code}: ${body.message} (requestId ${body.requestId})`);
    this.name = 'PetStoreError';
    this.body = body;
    this.response = response;
  }
}

/** The targets of a Link header (RFC 8288) by relation, resolved against `base`. */
export const links = (header: string | null, base: string): Map<string, URL> => {
  const found = new Map<string, URL>();
  for (const [, target, params] of (header ?? '').matchAll(/<([^>]*)>([^,]*)/g)) {
    const relations = /;\s*rel="?([^";]+)"?/i.exec(params ?? '')?.[1];
    for (const relation of relations?.trim().split(/\s+/) ?? [])
      found.set(relation.toLowerCase(), new URL(target!, base));
  }
  return found;
};

/**
 * The cursor of the page after this one, from the response's `Link: <…>; rel="next"`;
 * undefined on the last page. The next page is the same listing with this `cursor`.
 */
export const nextCursor = (response: Response): string | undefined =>
  links(response.headers.get('link'), response.url).get('next')?.searchParams.get('cursor') ?? undefined;

/**
 * Every page of `GET /pets` for `query`, following the `next` links until the last page.
 * Throws PetStoreError when a page is answered with an error.
 */
export async function* listPetPages(
  client: PetStoreClient,
  query: Omit<ListPetsQuery, 'cursor'> = {},
): AsyncGenerator<Pet[], void> {
  let cursor: string | undefined;
  do {
    const { data, error, response } = await client.GET('/pets', { params: { query: { ...query, cursor } } });
    if (error) throw new PetStoreError(error, response);
    yield data;
    cursor = nextCursor(response);
  } while (cursor !== undefined);
}

/** One quota policy of `RateLimit-Policy`: at most `quota` requests per `windowSeconds`. */
export interface RateLimitPolicy {
  /** `burst` (at once), `steady` (every second after) or `daily` (per UTC day). */
  name: string;
  quota: number;
  windowSeconds: number;
}

/**
 * The caller's key's limits, from the response's `RateLimit-Policy` header
 * (draft-ietf-httpapi-ratelimit-headers), e.g. `"burst";q=100;w=1, "daily";q=2000000;w=86400`;
 * `[]` when the answer has none (a 401, or one API Gateway made before the key was known).
 */
export const rateLimitPolicies = (response: Response): RateLimitPolicy[] =>
  (response.headers.get('ratelimit-policy') ?? '').split(',').flatMap((item) => {
    const [name, ...params] = item.trim().split(';');
    const value = (key: string) => Number(params.find((p) => p.trim().startsWith(`${key}=`))?.split('=')[1]);
    const policy = { name: name?.replace(/^"|"$/g, '') ?? '', quota: value('q'), windowSeconds: value('w') };
    return policy.name && Number.isInteger(policy.quota) && Number.isInteger(policy.windowSeconds) ? [policy] : [];
  });
