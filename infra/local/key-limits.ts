// API Gateway's usage plan, emulated: the authorizer names the caller's API key
// (usageIdentifierKey); each key has its own token bucket and, when set, a daily quota
// that starts over at 00:00 UTC, as a usage plan's DAY quota does. A key over either
// gets the THROTTLED or QUOTA_EXCEEDED response; a caller without an API key, API
// Gateway's INVALID_API_KEY (every method requires one). The day's counts are kept with the
// data (key-usage.ts), as the usage plan's are kept by API Gateway: a restart does not reset them.
import type { GatewayResponseType } from '../../shared/api/gateway-responses.ts';
import type { KeyLimits } from '../stages.ts';
import { keyUsage, utcDay } from './key-usage.ts';
import { createThrottle, type Throttle } from './throttle.ts';

type KeyRefusal = Extract<GatewayResponseType, 'INVALID_API_KEY' | 'THROTTLED' | 'QUOTA_EXCEEDED'>;

export interface KeyLimiter {
  /** Counts one request of the key; the refusal when it has no key or is over a limit. */
  take(usageKey: string | undefined): KeyRefusal | undefined;
}

/** API Gateway's own `$context.error.messageString` for each. */
export const KEY_REFUSAL_MESSAGES: Readonly<Record<KeyRefusal, string>> = {
  INVALID_API_KEY: 'Forbidden',
  THROTTLED: 'Too Many Requests',
  QUOTA_EXCEEDED: 'Limit Exceeded',
};

/** The usage plan's limits, and where the day's counts are kept (key-usage.ts): none, in memory. */
export interface LocalKeyLimits extends KeyLimits {
  usageFile?: string | undefined;
}

/** Without `limits`, every key may do anything, but must still have an API key. */
export const createKeyLimiter = (limits: LocalKeyLimits | undefined, now: () => number = Date.now): KeyLimiter => {
  const keys = new Map<string, { bucket: Throttle; day: number; used: number }>();
  const usage = keyUsage(limits?.usageFile);
  return {
    take(usageKey) {
      if (!usageKey) return 'INVALID_API_KEY';
      if (!limits) return undefined;
      let key = keys.get(usageKey);
      if (!key) {
        key = { bucket: createThrottle(limits.rateLimit, limits.burstLimit), day: -1, used: 0 };
        keys.set(usageKey, key);
      }
      const today = utcDay(now());
      if (key.day !== today) Object.assign(key, { day: today, used: usage.saved(usageKey, today) });
      if (limits.quotaPerDay !== undefined && key.used >= limits.quotaPerDay) return 'QUOTA_EXCEEDED';
      if (!key.bucket.tryTake()) return 'THROTTLED';
      key.used += 1;
      usage.count(usageKey, today);
      return undefined;
    },
  };
};
