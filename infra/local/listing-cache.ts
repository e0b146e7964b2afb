// The local stage's cache of `GET /v1/pets` pages when PETSTORE_LISTING_CACHE_TTL > 0: a page per
// list of values of limit, status and cursor, for the TTL, so that the staleness a cache adds can
// be seen and tested here. Every value counts: a parameter given twice (a 400) never shares an
// entry with the listing without it, which is why no deployed stage can cache (API Gateway's stage
// cache keys a parameter by its last value and keeps 400s: infra/constructs/api.ts). The gateway
// asks it only after the route, throttle, authorizer and the key's limits: a refused key never gets
// a page. Only 200 answers are kept.
//
// Bounded by bytes as well as pages, as API Gateway's cache is by its size: cursors make the keys
// unbounded, and 1,000 pages of the longest names (one read key's attack) held ~125 MB, the
// server's RSS went from 150 to 333 MB, and stayed there past the TTL, as nothing dropped a page
// nobody asked for again. Now the oldest pages go once the bytes pass the bound, and expired ones
// as soon as any listing is served.
import type { APIGatewayProxyResult } from 'aws-lambda';

/** Pages kept at most: cursors make the keys unbounded; the oldest page goes first. */
const LISTING_CACHE_MAX_ENTRIES = 1000;
/** What the kept pages may hold together, counted as the server holds them (listingBytes). */
const LISTING_CACHE_MAX_BYTES = 8 * 1024 * 1024;
/** The query parameters a listing page depends on: the cache key, each with all its values. */
const KEY_PARAMETERS = ['limit', 'status', 'cursor'] as const;
/** A page's bookkeeping beside its text: the entry, the result and its headers' objects. */
const ENTRY_OVERHEAD_BYTES = 512;

export interface ListingCache {
  /** The page cached for `url`'s key while fresh, else `load`'s answer (kept when a 200). */
  serve(url: URL, load: () => Promise<APIGatewayProxyResult>): Promise<APIGatewayProxyResult>;
  /** The pages it holds and their bytes (listingBytes), expired ones included until they are dropped. */
  held(): { pages: number; bytes: number };
}

interface ListingCacheBounds {
  maxEntries?: number;
  maxBytes?: number;
}

/**
 * What a page holds in the server: its strings at two bytes a character (V8 keeps a string with
 * any character past U+00FF so, and a page of emoji names is one), the key's text too, and the
 * objects around them.
 */
const listingBytes = (key: string, result: APIGatewayProxyResult): number => {
  let characters = key.length + (result.body?.length ?? 0);
  for (const [name, value] of Object.entries(result.headers ?? {})) characters += name.length + String(value).length;
  return 2 * characters + ENTRY_OVERHEAD_BYTES;
};

export const createListingCache = (
  ttlSeconds: number,
  { maxEntries = LISTING_CACHE_MAX_ENTRIES, maxBytes = LISTING_CACHE_MAX_BYTES }: ListingCacheBounds = {},
  now: () => number = Date.now,
): ListingCache => {
  // A Map iterates in insertion order, and every page is kept for the same TTL from when it is
  // put: the first entry is the oldest, and the first to expire.
  const entries = new Map<string, { result: APIGatewayProxyResult; expires: number; bytes: number }>();
  let bytes = 0;
  const drop = (key: string) => {
    bytes -= entries.get(key)?.bytes ?? 0;
    entries.delete(key);
  };
  /** Drops the oldest pages while they are expired, or the cache is over a bound. */
  const trim = () => {
    for (const [key, entry] of entries) {
      if (entry.expires > now() && entries.size <= maxEntries && bytes <= maxBytes) return;
      drop(key);
    }
  };
  return {
    async serve(url, load) {
      if (ttlSeconds <= 0) return load();
      trim();
      const key = JSON.stringify(KEY_PARAMETERS.map((name) => url.searchParams.getAll(name)));
      const entry = entries.get(key);
      if (entry && entry.expires > now()) return entry.result;
      const result = await load();
      if (result?.statusCode === 200) {
        const size = listingBytes(key, result);
        drop(key);
        // A page larger than the whole bound is not kept (it would push out every other and itself).
        if (size <= maxBytes) {
          entries.set(key, { result, expires: now() + ttlSeconds * 1000, bytes: size });
          bytes += size;
          trim();
        }
      }
      return result;
    },
    held: () => ({ pages: entries.size, bytes }),
  };
};
