// Settings shared by every stage, then each deployed stage's own: the one typed place
// where staging and production differ. No CDK import here: the local server and the key
// tool load this file too.
import type { RateLimits } from '../shared/domain/api-keys.ts';
import type { AlarmSettings, ReleaseAlarmSettings } from './monitoring/alarm-settings.ts';
import type { CanarySettings, SloSettings } from './monitoring/watch-settings.ts';

/** Every function's timeout: API Gateway's own limit is 29 s, so a slow function is ours to cut. */
export const FUNCTION_TIMEOUT_SECONDS = 10;

/** How long API Gateway caches an authorizer's answer per token, deployed. */
export const DEPLOYED_AUTHORIZER_CACHE_TTL_SECONDS = 300;

export type DeployedStage = 'staging' | 'production';

/**
 * The tag the key tool puts on each API key it makes, naming the stage: API keys are the
 * account's, not an API's, and carry no CloudFormation tag, so the other stage's execution policy
 * refuses them by this one (infra/ci/execution-policy.ts).
 */
export const STAGE_TAG = 'petstore:stage';
export const DEPLOYED_STAGES: readonly DeployedStage[] = ['staging', 'production'];

export const stackName = (stage: DeployedStage): string => `PetStore-${stage}`;
/** The secret holding the stage's smoke canary's read key, which the stack mints: the pipeline's smoke runs read it too. */
export const canaryKeySecretName = (stage: DeployedStage): string => `${stackName(stage)}/smoke-canary-key`;
/** The secret holding the write key of a stage with `smokeWriteKey`, which the stack mints: the pipeline's full smoke run reads it. */
export const smokeWriteKeySecretName = (stage: DeployedStage): string => `${stackName(stage)}/smoke-write-key`;

/**
 * The secret the pipeline's smoke run of a stage reads its key from (.github/workflows), and the
 * one its deploy role may read: the write key where the stage has one, else the canary's read key.
 */
export const pipelineSmokeKeySecretName = (stage: DeployedStage): string =>
  stageSettings[stage].smokeWriteKey ? smokeWriteKeySecretName(stage) : canaryKeySecretName(stage);

/** CloudFormation output keys of each stage's stack; the key tool reads them. */
export const STACK_OUTPUTS = {
  baseUrl: 'BaseUrl',
  petsTableName: 'PetsTableName',
  keysTableName: 'KeysTableName',
  countersTableName: 'CountersTableName',
  /** The REST API's id: `keys revoke` flushes its stage's authorizer cache. */
  restApiId: 'RestApiId',
  idempotencyTableName: 'IdempotencyTableName',
  usagePlanId: 'UsagePlanId',
  /** The secret the release checks read the stage's probe key from (docs/deploying.md). */
  probeKeySecretArn: 'ProbeKeySecretArn',
  /** The secret the smoke canary reads its key from: the key tool's read key goes there. */
  canaryKeySecretArn: 'CanaryKeySecretArn',
} as const;

/** Retention periods (days) that CloudWatch Logs accepts. */
const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
] as const;
type LogRetentionDays = (typeof LOG_RETENTION_DAYS)[number];

/** What each API key may do on its own: its usage plan deployed, the local gateway's bucket locally. */
export type KeyLimits = RateLimits;

export interface StageSettings {
  readonly stage: DeployedStage;
  /** API Gateway stage throttling: steady requests per second, and the bucket that absorbs bursts. */
  readonly throttling: { readonly rateLimit: number; readonly burstLimit: number };
  /** Each key's own limits (the stage's usage plan), under the stage throttling above. */
  readonly keyLimits: KeyLimits;
  /**
   * The generation of the read keys the stack mints for the release checks and the smoke canary
   * (infra/constructs/read-key.ts): raise it and deploy to replace both keys (the old ones are revoked).
   */
  readonly readKeyGeneration: number;
  /**
   * The stack also mints a `write` key (same custom resource and generation as the read keys)
   * into its own secret (smokeWriteKeySecretName), and the pipeline's smoke run after the deploy
   * uses it: every check, writes (createPet, idempotency) included. Never production, whose smoke
   * runs are read-only: synth refuses it there (infra/constructs/read-key.ts).
   */
  readonly smokeWriteKey: boolean;
  /** How long the functions' and the API's access log groups keep events. */
  readonly logRetentionDays: LogRetentionDays;
  /** POWERTOOLS_LOG_LEVEL of every function. */
  readonly logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /** Every function's memory in MB; Lambda gives CPU in proportion, which is what cold starts need. */
  readonly memoryMb: number;
  readonly authorizerCacheTtlSeconds: number;
  /** What CloudFormation does with the tables and log groups when they leave the stack. */
  readonly removalPolicy: 'retain' | 'destroy';
  readonly pointInTimeRecovery: boolean;
  /** DynamoDB refuses DeleteTable, whoever asks. */
  readonly deletionProtection: boolean;
  /** CloudFormation refuses to delete the whole stack. */
  readonly terminationProtection: boolean;
  /**
   * NODE_OPTIONS=--enable-source-maps: stack traces in the logs point at the TypeScript
   * source, at the price of parsing the source map at cold start and mapping every stack.
   */
  readonly enableSourceMaps: boolean;
  /**
   * N of the status index (shared/dynamodb/status-shards.ts): a status takes N times the ~1,000
   * writes per second of one index partition. It may only grow: raise it, and the record in
   * infra/status-index-shards.ts with it, when the StatusIndexShardsHot alarm says so
   * (docs/capacity.md, docs/runbook.md); synth refuses a value below that record.
   */
  readonly statusIndexShards: number;
  /**
   * Seconds an API Gateway stage cache would keep a `GET /v1/pets` page: 0, the only value synth
   * takes. API Gateway keys a repeated query parameter by its last value and caches 400s, so a
   * listing with a parameter given twice would poison the same listing without it
   * (infra/constructs/api.ts, docs/capacity.md: First pages). The local stage's
   * PETSTORE_LISTING_CACHE_TTL keys on every value.
   */
  readonly listingCacheTtlSeconds: number;
  /** Bump it to replace the paging cursors' HMAC secret with a new random one (README: Deploying). */
  readonly cursorSecretGeneration: number;
  /**
   * The functions' own part of a sampled trace (shared/observability/xray.ts): the handler's
   * subsegment, annotated operation, keyId and requestId (docs/runbook.md: from a requestId to
   * its trace), with a subsegment per DynamoDB call. Lambda's own active tracing stays on either
   * way (its segments cost no code). An unsampled invocation pays only for reading its trace
   * header; what a sampled one pays is in docs/performance.md, "Functions alone".
   */
  readonly functionTracing: boolean;
  /**
   * Reserved concurrency of the authorizer: Lambda keeps it for the authorizer alone, so that
   * when the routes' functions (or any other function of the account) use up the account's
   * concurrency, keys can still be checked; and it caps the authorizer, so that a flood of
   * made-up keys (each one a cache miss) cannot take the routes' concurrency either. At the
   * measured ~14 ms a check, 50 covers ~3,500 checks/s; with the authorizer cache, a check
   * happens once per key per authorizerCacheTtlSeconds (docs/capacity.md). It is taken from the account's pool, which
   * must keep 100 unreserved: an account whose quota is still the new-account default (10)
   * cannot deploy it until the quota is raised (README: Deploying).
   */
  readonly authorizerReservedConcurrency: number;
  // ── Releases (infra/constructs/deployment.ts, infra/monitoring/release-alarms.ts, docs/runbook.md: Releases) ──
  /**
   * How a deploy moves each function's `live` alias to the new version (CodeDeploy): a canary
   * that sends `percent` of the traffic to it for `minutes`, then all of it. Every stage takes
   * this road, so that production is never the first place the deploy path runs. The minutes
   * must leave the release alarms time to fire (minutesToAlarm, checked at synth).
   */
  readonly deployment: { readonly kind: 'canary'; readonly percent: number; readonly minutes: number };
  /** The alarms on the new version alone that roll a shift back (alarm-settings.ts). */
  readonly releaseAlarms: ReleaseAlarmSettings;
  // ── Monitoring (infra/monitoring, docs/runbook.md) ──
  /**
   * A synth without an alarm destination fails (true) or only warns (false). Destinations
   * themselves are set per deploy, not here (infra/monitoring/alarm-destinations.ts,
   * docs/deploying.md: Where alarms go).
   */
  readonly alarmDestinationRequired: boolean;
  /** Alarm thresholds and evaluation; every alarm treats missing data as OK. */
  readonly alarms: AlarmSettings;
  /** The smoke canary: the read-only smoke checks from outside, on a schedule (infra/monitoring/canary.ts). */
  readonly canary: CanarySettings;
  /** Service level objectives and their burn-rate alerts (infra/monitoring/slo.ts, docs/runbook.md). */
  readonly slo: SloSettings;
}

export const stageSettings: Readonly<Record<DeployedStage, StageSettings>> = {
  staging: {
    stage: 'staging',
    // Enough for the release checks and a load test; a runaway client cannot run up the bill.
    throttling: { rateLimit: 50, burstLimit: 100 },
    // Under half the stage's: one key's load test leaves room for everyone else's checks.
    keyLimits: { rateLimit: 20, burstLimit: 40, quotaPerDay: 100_000 },
    logRetentionDays: 14,
    logLevel: 'INFO',
    // Same memory as production, so that what staging measures holds for production.
    memoryMb: 1024,
    authorizerCacheTtlSeconds: DEPLOYED_AUTHORIZER_CACHE_TTL_SECONDS,
    // Staging holds test data only: `cdk destroy` removes it all.
    removalPolicy: 'destroy',
    // On, as in production: it costs next to nothing on test data, and the runbook's restore
    // can be rehearsed here before anyone needs it in production.
    pointInTimeRecovery: true,
    readKeyGeneration: 1,
    // The pipeline's smoke run checks the write paths here, on test data, before production.
    smokeWriteKey: true,
    deletionProtection: false,
    terminationProtection: false,
    // Readable stack traces where faults are chased; production keeps the cold starts lean.
    enableSourceMaps: true,
    cursorSecretGeneration: 1,
    // One shard: staging's writes are a few a second.
    statusIndexShards: 1,
    // No cache: a few requests a second need none, and the cluster would cost by the hour.
    listingCacheTtlSeconds: 0,
    // Where releases are checked and faults chased: every trace in full.
    functionTracing: true,
    // Few checks; 10 keeps most of a shared account's pool for production.
    authorizerReservedConcurrency: 10,
    // The same road as production, shorter: the pre-traffic checks, then 10 % for 5 minutes,
    // so that a broken hook, alarm or deployment group shows here first.
    deployment: { kind: 'canary', percent: 10, minutes: 5 },
    // Little traffic besides the release checks: one breaching minute is enough.
    releaseAlarms: {
      datapoints: 1,
      faultRatePercent: 5,
      minAnswers: 5,
      lambdaErrors: 1,
      refusalRisePoints: 30,
      minAuthorizations: 5,
    },
    // Staging's alarms may go unread (they still show in CloudWatch and on the dashboard): synth warns.
    alarmDestinationRequired: false,
    // ── Monitoring ── Few, irregular requests: a 5-minute period, any breach alarms, so a
    // broken deployment shows before production. Looser latency: cold starts dominate.
    alarms: {
      periodMinutes: 5,
      evaluationPeriods: 1,
      datapointsToAlarm: 1,
      api5xxRatePercent: 5,
      api5xxMinRequests: 10,
      apiLatencyP99Ms: 3000,
      lambdaErrors: 1,
      lambdaThrottles: 1,
      dynamodbThrottledRequests: 1,
      dynamodbSystemErrors: 1,
      authorizerErrors: 1,
      shardRecordReadFailures: 1,
      keyUseRecordFailures: 1,
    },
    // ── Watched from outside ── Every 5 minutes like production: staging breaks first.
    canary: { everyMinutes: 5, failedRunsToAlarm: 2 },
    // Looser than production: few requests, most of them cold starts (docs/performance.md).
    slo: { availabilityPercent: 99, latencyPercent: 99, latencyBoundMs: 3000, minRequestsPerWindow: 10 },
  },
  production: {
    stage: 'production',
    // Far below the account's API Gateway (10,000 rps) and Lambda concurrency (1,000) quotas,
    // which every API in the account shares; raise with the traffic.
    throttling: { rateLimit: 200, burstLimit: 400 },
    // A quarter of the stage's: one noisy client cannot use up what the others need. The
    // quota (about 23 requests per second all day) stops a runaway loop within the day.
    keyLimits: { rateLimit: 50, burstLimit: 100, quotaPerDay: 2_000_000 },
    // A year of access logs: enough to answer "who used this key, when" after an incident.
    logRetentionDays: 365,
    logLevel: 'INFO',
    memoryMb: 1024,
    authorizerCacheTtlSeconds: DEPLOYED_AUTHORIZER_CACHE_TTL_SECONDS,
    removalPolicy: 'retain',
    pointInTimeRecovery: true,
    readKeyGeneration: 1,
    // Read-only smoke runs only: nothing the checks create lands among real data.
    smokeWriteKey: false,
    deletionProtection: true,
    terminationProtection: true,
    enableSourceMaps: false,
    cursorSecretGeneration: 1,
    // One shard until the alarm says the peak nears 700 creates per second of one status (docs/capacity.md).
    statusIndexShards: 1,
    // Off until first pages near a partition's ceiling (docs/capacity.md: First pages): the
    // cluster costs by the hour, whatever the traffic, and adds staleness to every listing.
    listingCacheTtlSeconds: 0,
    // What on-call gets is which DynamoDB call was slow, throttled or failing, for any sampled
    // request, by its requestId; its cost is within the functions' targets (docs/performance.md).
    functionTracing: true,
    authorizerReservedConcurrency: 50,
    // 10 % of the traffic on the new version for 10 minutes: its release alarms fire within
    // minutesToAlarm (5) of its first faulty minute, so a fault seen in the first half of the
    // canary rolls it back before all traffic moves (docs/runbook.md: Releases).
    deployment: { kind: 'canary', percent: 10, minutes: 10 },
    // Two breaching minutes in a row: one unlucky minute does not roll back a good release.
    releaseAlarms: {
      datapoints: 2,
      faultRatePercent: 5,
      minAnswers: 10,
      lambdaErrors: 1,
      refusalRisePoints: 30,
      minAuthorizations: 5,
    },
    alarmDestinationRequired: true,
    // ── Monitoring ── Minutes, 3 of the last 5 breaching: a lasting problem pages, a blip does not.
    alarms: {
      periodMinutes: 1,
      evaluationPeriods: 5,
      datapointsToAlarm: 3,
      // 1 % of at least 20 requests a minute: a steady fault, not one unlucky request.
      api5xxRatePercent: 1,
      api5xxMinRequests: 20,
      // DynamoDB answers in milliseconds: 2 s at p99 is cold starts piling up or retries.
      apiLatencyP99Ms: 2000,
      // Every Lambda error is a crash or a timeout (handled errors are responses).
      lambdaErrors: 1,
      lambdaThrottles: 1,
      // A few throttled calls a minute are absorbed by the SDK's retries; more become 503s.
      dynamodbThrottledRequests: 5,
      dynamodbSystemErrors: 1,
      authorizerErrors: 1,
      // Each is a read the SDK already retried (3 attempts), at most two a second per container:
      // one a minute in 3 of 5 minutes is the counters table failing listPets, not a blip.
      shardRecordReadFailures: 1,
      keyUseRecordFailures: 1,
    },
    // ── Watched from outside ── Two failed runs in a row (10 minutes) alarm: one can be the network.
    canary: { everyMinutes: 5, failedRunsToAlarm: 2 },
    // 99.9 %: 43 minutes of full outage a month. Latency: 99 % within 1 s at API Gateway. A warm
    // request spends milliseconds in its function (docs/capacity.md); a cold start, a few in ten
    // thousand requests at steady traffic, adds a fraction of a second to the function and again
    // to the authorizer (docs/performance.md): 1 s holds even for a request that meets both cold.
    // The p99 alarm (ApiLatencyP99) stays the blunt instrument; this counts every slow request.
    slo: { availabilityPercent: 99.9, latencyPercent: 99, latencyBoundMs: 1000, minRequestsPerWindow: 20 },
  },
};
