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

  it('makes one lookup of a token for the requests that need it at once, and shares its refusal too', async () => {
    const cache = createAuthorizerCache<string>(300);
    let loads = 0;
    let answer!: (value: string) => void;
    const load = () => {
      loads++;
      return new Promise<string>((resolve) => (answer = resolve));
    };
    const lookups = [cache.lookup('token', load), cache.lookup('token', load), cache.lookup('token', load)];
    answer('allow');
    expect(await Promise.all(lookups)).toEqual(['allow', 'allow', 'allow']);
    expect(loads).toBe(1);
    expect(await cache.lookup('token', load)).toBe('allow'); // cached now: no lookup

    const refusing = () => {
      loads++;
      return Promise.reject(new Error('Unauthorized'));
    };
    const refused = await Promise.allSettled([cache.lookup('other', refusing), cache.lookup('other', refusing)]);
    expect(refused.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(loads).toBe(2);
  });

  it('starts a lookup of its own after a flush, rather than join one that began before it', async () => {
    const cache = createAuthorizerCache<string>(300);
    const answers: Array<(value: string) => void> = [];
    const load = () => new Promise<string>((resolve) => answers.push(resolve));
    const early = cache.lookup('token', load);
    cache.flush(); // a revoke
    const late = cache.lookup('token', load);
    expect(answers).toHaveLength(2);
    answers[0]!('allow, read before the revoke');
    answers[1]!('deny, read after');
    expect([await early, await late]).toEqual(['allow, read before the revoke', 'deny, read after']);
    expect(cache.get('token')).toBe('deny, read after');
  });

  it('without a cache (TTL 0), every request asks the authorizer, as deployed', async () => {
    const cache = createAuthorizerCache<string>(0);
    let loads = 0;
    const load = async () => `allow ${++loads}`;
    expect(await Promise.all([cache.lookup('token', load), cache.lookup('token', load)])).toEqual([
      'allow 1',
      'allow 2',
    ]);
  });
});
