// The local stage's authorizer cache on its own: TTL, and a flush that no answer
// started before it can undo.
import { describe, expect, it } from 'vitest';
import { createAuthorizerCache } from '../../infra/local/authorizer-cache.ts';

describe('the local authorizer cache', () => {
  it('keeps an answer for its TTL, then forgets it', () => {
    let now = 1_000_000;
    const cache = createAuthorizerCache<string>(300, () => now);
    cache.begin()('token', 'allow');
    expect(cache.get('token')).toBe('allow');
    now += 299_999;
    expect(cache.get('token')).toBe('allow');
    now += 1;
    expect(cache.get('token')).toBeUndefined();
  });

  it('keeps nothing with a TTL of 0', () => {
    const cache = createAuthorizerCache<string>(0);
    cache.begin()('token', 'allow');
    expect(cache.get('token')).toBeUndefined();
  });

  it('forgets every answer on flush', () => {
    const cache = createAuthorizerCache<string>(300);
    cache.begin()('a', 'allow a');
    cache.begin()('b', 'allow b');
    cache.flush();
    expect([cache.get('a'), cache.get('b')]).toEqual([undefined, undefined]);
  });

  it('does not keep an answer whose lookup began before a flush (it may predate the revoke)', () => {
    const cache = createAuthorizerCache<string>(300);
    const keepEarly = cache.begin();
    cache.flush();
    keepEarly('token', 'allow, read before the revoke');
    expect(cache.get('token')).toBeUndefined();
    cache.begin()('token', 'allow, read after');
    expect(cache.get('token')).toBe('allow, read after');
  });
});
