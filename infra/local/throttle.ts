// API Gateway's stage throttling: a token bucket holding `burst` requests, refilled
// at `rate` per second. A request that finds it empty gets the THROTTLED response.

export interface Throttle {
  /** Takes one token; false when the bucket is empty. */
  tryTake(): boolean;
}

export const createThrottle = (
  rate: number,
  burst: number,
  now: () => number = performance.now.bind(performance),
): Throttle => {
  let tokens = burst;
  let refilledAt = now();
  return {
    tryTake() {
      const at = now();
      tokens = Math.min(burst, tokens + ((at - refilledAt) / 1000) * rate);
      refilledAt = at;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
  };
};
