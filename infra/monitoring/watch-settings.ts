// What watches a stage from outside and against its objectives: the smoke canary
// (infra/monitoring/canary.ts) and the service level objectives (infra/monitoring/slo.ts).
// Each stage's values live in infra/stages.ts (`canary`, `slo`). No CDK import: the canary's
// own code (tools/smoke/canary.ts) reads its environment's names from here too.

/** The canary's environment: set by infra/monitoring/canary.ts, read by tools/smoke/canary.ts. */
export const CANARY_ENV = { baseUrl: 'SMOKE_BASE_URL', keySecretArn: 'SMOKE_KEY_SECRET_ARN' } as const;

export interface CanarySettings {
  /** Minutes between two runs of the read-only smoke checks. */
  readonly everyMinutes: number;
  /** Consecutive failed runs that fire the SmokeCanary alarm (one failed run can be a network blip). */
  readonly failedRunsToAlarm: number;
}

export interface SloSettings {
  /** Availability: share of requests not answered 5XX, in percent (99.9: 0.1 % of requests is the error budget). */
  readonly availabilityPercent: number;
  /** Latency: share of requests answered within `latencyBoundMs`, end to end at API Gateway, in percent. */
  readonly latencyPercent: number;
  readonly latencyBoundMs: number;
  /**
   * Fewer requests than this in a burn-rate window: the window is not judged. One failure in
   * three requests is not a burning budget, it is too little traffic to say.
   */
  readonly minRequestsPerWindow: number;
}
