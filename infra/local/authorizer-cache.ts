// API Gateway's authorizer cache, as the local stage keeps it: the authorizer's answer
// per token for the stage's TTL (the deployed one by default). `flush` is the local twin
// of FlushStageAuthorizersCache; the key tool calls it after a revoke (through the
// management endpoint), so that a revoked key is refused at once.

export interface AuthorizerCache<T> {
  /** The cached answer for `token`, while it is fresh. */
  get(token: string): T | undefined;
  /**
   * To call before asking the authorizer: the function it returns caches the answer,
   * unless the cache was flushed meanwhile. A lookup that started before a revoke's
   * flush may have read the key before it was revoked; its answer must not outlive the flush.
   */
  begin(): (token: string, answer: T) => void;
  flush(): void;
}

export const createAuthorizerCache = <T>(ttlSeconds: number, now: () => number = Date.now): AuthorizerCache<T> => {
  const entries = new Map<string, { answer: T; expires: number }>();
  let generation = 0;
  return {
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
    flush() {
      entries.clear();
      generation++;
    },
  };
};
