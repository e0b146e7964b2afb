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
  /**
   * listPets' best-effort re-reads of the status index's shard record that failed, retries
   * included, per period (ShardRecordReadFailures): the listings still answered, but a container
   * whose re-reads keep failing for a second answers its filtered listings 503.
   */
  readonly shardRecordReadFailures: number;
  /**
   * The authorizer's records of a key's last use that failed, per period (KeyUseRecordFailures):
   * the keys were let in, but `keys list` no longer shows that they are in use.
   */
  readonly keyUseRecordFailures: number;
}

/**
 * The alarms that watch the new version alone while CodeDeploy shifts traffic to it
 * (release-alarms.ts): one-minute periods, so that they can fire inside the canary.
 */
export interface ReleaseAlarmSettings {
  /** Consecutive breaching one-minute periods that fire (datapoints to alarm = evaluation periods). */
  readonly datapoints: number;
  /** The new version's 5xx answers, percent of its answers in a minute. */
  readonly faultRatePercent: number;
  /** Fewer answers than this from the new version in a minute: its fault rate is not judged. */
  readonly minAnswers: number;
  /** The new version's failed invocations (crash, timeout, out of memory) in a minute. */
  readonly lambdaErrors: number;
  /**
   * The new authorizer's share of callers not let in (refused or failed), in percentage points
   * above the share of the versions still serving, in the same minute.
   */
  readonly refusalRisePoints: number;
  /** Fewer authorizations by the new version than this in a minute: its share is not judged. */
  readonly minAuthorizations: number;
}

/** One-minute periods: the shortest CloudWatch keeps for standard-resolution metrics. */
export const RELEASE_ALARM_PERIOD_MINUTES = 1;
/**
 * How late a minute's datapoint may be: Lambda's metrics and the EMF metrics of the summary
 * lines usually reach CloudWatch within one to two minutes of the minute they describe.
 */
export const METRIC_DELAY_MINUTES = 2;
/** CloudWatch evaluates a one-minute alarm once a minute. */
const ALARM_EVALUATION_MINUTES = 1;

/**
 * The longest a release alarm takes, from the start of the first faulty minute on the new
 * version to ALARM: the breaching periods, the metric delay, one evaluation.
 * docs/runbook.md (Releases) writes the arithmetic out; deployment.ts refuses a canary shorter.
 */
export const minutesToAlarm = ({ datapoints }: ReleaseAlarmSettings): number =>
  datapoints * RELEASE_ALARM_PERIOD_MINUTES + METRIC_DELAY_MINUTES + ALARM_EVALUATION_MINUTES;
