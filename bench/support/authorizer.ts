// Authorizer cache misses, by construction: a key never seen before is a miss, the
// same key again within the TTL is a hit, and an unknown key is never cached. The
// requests are listings (a Scan), so every GetItem the embedded DynamoDB answers
// meanwhile is a key lookup.
import { httpClient } from '../../test/support/http-load.ts';
import type { UserServer } from './processes.ts';
import { median, round } from './stats.ts';
import { countDelta } from './target-protocol.ts';

const KEYS = 50;

export interface AuthorizerFigures {
  misses: number;
  /** Key lookups per cache miss (a new, valid key). */
  keysTableRequestsPerMiss: number;
  /** Key lookups per request whose key is cached. */
  keysTableRequestsPerHit: number;
  /** Key lookups per request with a well-formed but unknown key (refused, not cached). */
  keysTableRequestsPerUnknownKey: number;
  /** Median latency, sequential requests: what a miss costs over a hit. */
  missP50: number;
  hitP50: number;
  unexpectedStatuses: number;
}

export const measureAuthorizer = async (target: UserServer, generateKey: () => string): Promise<AuthorizerFigures> => {
  const validKeys = await target.keys(KEYS);
  const unknownKeys = Array.from({ length: KEYS }, generateKey);
  const client = httpClient(target.baseUrl, 1);
  let unexpectedStatuses = 0;

  const phase = async (keys: string[], expectedStatus: number) => {
    const before = await target.requests();
    const latencies: number[] = [];
    for (const key of keys) {
      const begun = performance.now();
      const { status } = await client.send({
        method: 'GET',
        path: '/pets?limit=1',
        headers: { Authorization: `Bearer ${key}` },
      });
      latencies.push(performance.now() - begun);
      if (status !== expectedStatus) unexpectedStatuses++;
    }
    const lookups = countDelta(before, await target.requests()).GetItem ?? 0;
    return { perRequest: round(lookups / keys.length, 3), p50: round(median(latencies)) };
  };

  try {
    const miss = await phase(validKeys, 200);
    const hit = await phase(validKeys, 200);
    const unknown = await phase(unknownKeys, 401);
    return {
      misses: KEYS,
      keysTableRequestsPerMiss: miss.perRequest,
      keysTableRequestsPerHit: hit.perRequest,
      keysTableRequestsPerUnknownKey: unknown.perRequest,
      missP50: miss.p50,
      hitP50: hit.p50,
      unexpectedStatuses,
    };
  } finally {
    client.close();
  }
};
