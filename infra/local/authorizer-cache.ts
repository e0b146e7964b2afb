// API Gateway's authorizer cache, as the local stage keeps it: the authorizer's answer
// per token for the stage's TTL (the deployed one by default). `flush` is the local twin
// of FlushStageAuthorizersCache; the key tool calls it after a revoke (through the
// management endpoint), so that a revoked key is refused at once. Lookups of one token that run
// at once are one lookup: a new key's 1,300 simultaneous first requests each called the authorizer,
// overflowed its queue, and 292 were refused 429 with no limit reached.

export interface AuthorizerCache<T> {
  /** The cached answer for `token`, while it is fresh. */
  get(token: string): T | undefined;
  /**
   * To call before asking the authorizer: the function it returns caches the answer,
   * unless the cache was flushed meanwhile. A lookup that started before a revoke's
   * flush may have read the key before it was revoked; its answer must not outlive the flush.
   */
  begin(): (token: string, answer: T) => void;
  /**
   * The cached answer for `token`, else `load`'s, kept as `begin` keeps it. While the cache is on,
   * a lookup of a token whose lookup is under way joins it (its answer or its error) instead of
   * starting another; one that starts after a flush never joins one from before it.
   */
  lookup(token: string, load: () => Promise<T>): Promise<T>;
  flush(): void;
}

export const createAuthorizerCache = <T>(ttlSeconds: number, now: () => number = Date.now): AuthorizerCache<T> => {
  const entries = new Map<string, { answer: T; expires: number }>();
  /** The lookups under way since the last flush, per token. */
  let pending = new Map<string, Promise<T>>();
  let generation = 0;
  const cache: AuthorizerCache<T> = {
    get(token) {
      const entry = entries.get(token);
      if (entry && entry.expires > now()) return entry.answer;
      if (entry) entries.delete(token);
      return undefined;
    },
    begin() {
      const startedIn = generation;
      return (token, answer) => {
        if (ttlSeconds > 0 && startedIn === generation)
          entries.set(token, { answer, expires: now() + ttlSeconds * 1000 });
      };
    },
    async lookup(token, load) {
      const cached = cache.get(token);
      if (cached !== undefined) return cached;
      // Without a cache (TTL 0), as deployed without one, every request asks the authorizer.
      if (ttlSeconds <= 0) return load();
      const joined = pending.get(token);
      if (joined) return joined;
      const keep = cache.begin();
      const lookups = pending;
      const lookup = load().then((answer) => {
        keep(token, answer);
        return answer;
      });
      lookups.set(token, lookup);
      const forget = () => lookups.delete(token);
      lookup.then(forget, forget);
      return lookup;
    },
    flush() {
      entries.clear();
      pending = new Map();
      generation++;
    },
  };
  return cache;
};
