// The alarm thresholds of one stage: each stage's values live in infra/stages.ts
// (`alarms`), the alarms that read them in infra/monitoring/alarms.ts. No CDK import.

export interface AlarmSettings {
  /** Length of one evaluation period, in minutes. */
  readonly periodMinutes: number;
  /** An alarm fires when `datapointsToAlarm` of the last `evaluationPeriods` periods breach. */
  readonly evaluationPeriods: number;
  readonly datapointsToAlarm: number;
  /** API 5XX responses, percent of all responses in a period. */
  readonly api5xxRatePercent: number;
  /** Fewer requests than this in a period: the 5XX rate is not judged (one failure of two is not 50 %). */
  readonly api5xxMinRequests: number;
  /** API Gateway's p99 latency (ms), from request received to response sent, authorizer included. */
  readonly apiLatencyP99Ms: number;
  /** Failed invocations per function per period: a crash, a timeout or running out of memory. */
  readonly lambdaErrors: number;
  /** Invocations Lambda refused per function per period (concurrency exhausted). */
  readonly lambdaThrottles: number;
  /** Requests DynamoDB throttled per table per period. */
  readonly dynamodbThrottledRequests: number;
  /** Requests DynamoDB failed with a 500 per table per period. */
  readonly dynamodbSystemErrors: number;
  /** Requests API Gateway answered 503 because the authorizer failed (not refused a key), per period. */
  readonly authorizerErrors: number;
}
