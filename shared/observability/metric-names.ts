// The metrics the functions emit (CloudWatch EMF through Powertools), defined once:
// the functions record them through shared/observability/telemetry.ts and the CDK monitoring
// construct builds its alarms and dashboard from the same names and dimensions.
// Pure data: the CDK app imports it without loading Powertools.
import type { GatewayResponseType } from '../api/gateway-responses.ts';

/** POWERTOOLS_SERVICE_NAME: Powertools adds it to every metric as the `service` dimension. */
export const SERVICE_NAME = 'petstore';

/** One namespace per stage, so staging traffic never shows on production's alarms. */
export const metricsNamespace = (stage: string): string => `PetStore/${stage}`;

/** The functions' Powertools settings for a stage, as the local server and the stack set them. */
export const powertoolsEnvironment = (stage: string, logLevel: string, tracing = false): Record<string, string> => ({
  POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
  POWERTOOLS_METRICS_NAMESPACE: metricsNamespace(stage),
  POWERTOOLS_LOG_LEVEL: logLevel,
  // Powertools' switch for tracing, which xray.ts reads. Off by default: only a deployed function
  // with active tracing has an X-Ray daemon to send to.
  POWERTOOLS_TRACE_ENABLED: String(tracing),
});

export type MetricDimension =
  | 'operation'
  | 'statusClass'
  | 'keyId'
  | 'reason'
  | 'function_name'
  // Releases: the Lambda version that ran the invocation (its context's functionVersion).
  | 'executedVersion';

export interface MetricSpec {
  readonly name: string;
  readonly unit: 'Count' | 'Milliseconds';
  /** The dimension set it is emitted with, besides `service`. */
  readonly dimensions: readonly MetricDimension[];
}

export const METRICS = {
  /** Every request a function answered, by its HTTP status class. */
  requests: { name: 'Requests', unit: 'Count', dimensions: ['operation', 'statusClass'] },
  /** Time spent in the function's middleware chain; percentiles need one series per operation. */
  latency: { name: 'Latency', unit: 'Milliseconds', dimensions: ['operation'] },
  /** 400s: a query, path or body the API refused. */
  validationFailures: { name: 'ValidationFailures', unit: 'Count', dimensions: ['operation'] },
  /** 503s: DynamoDB throttling, failing or out of reach. */
  dynamodbFaults: { name: 'DynamoDBFaults', unit: 'Count', dimensions: ['operation'] },
  /** Calls to a deprecated operation, per caller, so its users can be told before the sunset. */
  deprecatedCalls: { name: 'DeprecatedCalls', unit: 'Count', dimensions: ['operation', 'keyId'] },
  /** Keys the authorizer refused (401); those refused by the identity pattern are in the access log only. */
  authFailures: { name: 'AuthFailures', unit: 'Count', dimensions: ['reason'] },
  /**
   * A listing's best-effort re-read of the status index's shard record that failed, retries
   * included (shared/dynamodb/shard-count.ts): the listing still answered, with the shards it knew.
   * Once a container's reads fail for a second, its filtered listings answer 503 instead.
   */
  shardRecordReadFailures: { name: 'ShardRecordReadFailures', unit: 'Count', dimensions: [] },
  /**
   * The authorizer's write of a key's last use that failed: the key was let in all the same, but
   * `keys list` shows it unused since its last recorded use, which could get a key in use revoked.
   */
  keyUseRecordFailures: { name: 'KeyUseRecordFailures', unit: 'Count', dimensions: [] },
  /** Powertools' own cold-start metric (captureColdStartMetric), named by the Lambda function. */
  coldStart: { name: 'ColdStart', unit: 'Count', dimensions: ['function_name'] },
  // ── Releases (infra/monitoring/release-alarms.ts) ──
  /**
   * Every answer of a function by the version that made it: 1 for a 5xx, 0 otherwise, so that
   * SampleCount is the version's answers and Average its fault share. While CodeDeploy shifts
   * traffic, the new version's own faults roll it back; the old version's do not.
   */
  versionFaults: { name: 'VersionFaults', unit: 'Count', dimensions: ['operation', 'executedVersion'] },
} as const satisfies Record<string, MetricSpec>;

export type MetricKey = keyof typeof METRICS;

/** A metric emitted or alarmed on with other dimensions than declared would never meet its alarm: fail loudly. */
export const assertDimensions = (key: MetricKey, dimensions: Partial<Record<MetricDimension, string>>): void => {
  const declared: readonly string[] = METRICS[key].dimensions;
  // Checked on every metric a request records: no array, sorting or joining unless it is wrong.
  let count = 0;
  let known = true;
  for (const name in dimensions) {
    count++;
    known &&= declared.includes(name);
  }
  if (known && count === declared.length) return;
  const given = Object.keys(dimensions);
  throw new Error(`metric ${key} takes dimensions [${[...declared].sort()}], got [${given.sort()}]`);
};

/** The status classes a response can have; 1xx and 3xx are never answered. */
export const STATUS_CLASSES = ['2xx', '4xx', '5xx'] as const;
export const statusClassOf = (status: number): string => `${Math.floor(status / 100)}xx`;

/** Why the authorizer refused a key (the `reason` dimension and log field). */
export const AUTH_FAILURE_REASONS = ['malformed', 'unknown', 'revoked', 'expired'] as const;
export type AuthFailureReason = (typeof AUTH_FAILURE_REASONS)[number];

/**
 * Not emitted by a function: a metric filter on the API access log counts the requests
 * API Gateway answered with an authorizer failure (the authorizer threw something other
 * than "Unauthorized", timed out or was throttled). The authorizer's own Lambda Errors
 * metric cannot tell these apart from refused keys, which also end in a thrown error.
 */
export const AUTHORIZER_ERRORS_METRIC = 'AuthorizerErrors';
export const AUTHORIZER_ERROR_RESPONSE_TYPES = [
  'AUTHORIZER_FAILURE',
  'AUTHORIZER_CONFIGURATION_ERROR',
] as const satisfies readonly GatewayResponseType[];
