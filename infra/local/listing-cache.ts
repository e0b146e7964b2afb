// API Gateway's stage cache for `GET /v1/pets` (listingCacheTtlSeconds deployed), as the local
// stage keeps it when PETSTORE_LISTING_CACHE_TTL > 0: a page per value of the cache key's query
// parameters (infra/constructs/api.ts: LISTING_CACHE_KEY_PARAMETERS), for the TTL, so that the
// staleness it adds can be seen and tested here. The gateway asks it only after the route,
// throttle, authorizer and the key's limits, as API Gateway does: a refused key never gets a page.
// Only 200 answers are kept (deployed, API Gateway may keep an error too: docs/api.md).
import type { APIGatewayProxyResult } from 'aws-lambda';

/** Pages kept at most: cursors make the keys unbounded; the oldest page goes first. */
const LISTING_CACHE_MAX_ENTRIES = 1000;
/** The query parameters of the cache key, as the deployed method's cacheKeyParameters name them. */
const KEY_PARAMETERS = ['limit', 'status', 'cursor'] as const;

export interface ListingCache {
  /** The page cached for `url`'s key while fresh, else `load`'s answer (kept when a 200). */
  serve(url: URL, load: () => Promise<APIGatewayProxyResult>): Promise<APIGatewayProxyResult>;
}

export const createListingCache = (
  ttlSeconds: number,
  maxEntries = LISTING_CACHE_MAX_ENTRIES,
  now: () => number = Date.now,
): ListingCache => {
  const entries = new Map<string, { result: APIGatewayProxyResult; expires: number }>();
  return {
    async serve(url, load) {
      if (ttlSeconds <= 0) return load();
      const key = JSON.stringify(KEY_PARAMETERS.map((name) => url.searchParams.getAll(name)));
      const entry = entries.get(key);
      if (entry && entry.expires > now()) return entry.result;
      if (entry) entries.delete(key);
      const result = await load();
      if (result?.statusCode === 200) {
        entries.delete(key);
        entries.set(key, { result, expires: now() + ttlSeconds * 1000 });
        // A Map iterates in insertion order: the first key is the oldest page.
        if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
      }
      return result;
    },
  };
};
