// The alarms of one stage, each to the stage's topic (on alarm and on recovery), with
// its threshold from the stage settings and a deliberate answer to "no data". Every
// alarm's name starts with its kind, which is a section of docs/runbook.md.
import { Duration } from 'aws-cdk-lib';
import {
  Alarm,
  Metric as CloudWatchMetric,
  ComparisonOperator,
  type IAlarmAction,
  type IMetric,
  MathExpression,
  type Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { Operation } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { dynamodbCalls, FUNCTION_NAMES, routes } from '../../shared/api/routes.ts';
import { petsTable, STATUS_INDEX } from '../../shared/dynamodb/tables.ts';
import { stackName } from '../stages.ts';
import { emfMetric } from './metrics.ts';
import type { MonitoringProps } from './props.ts';

/** What each kind of alarm means; docs/runbook.md has a section per kind. */
export const ALARM_KINDS = {
  Api5xxRate:
    'The API answered too many requests with a 5XX (our fault, DynamoDB unavailable, authorizer failure or timeout).',
  ApiLatencyP99: 'The slowest 1 % of requests took longer than the threshold, end to end at API Gateway.',
  LambdaErrors:
    'Invocations of the function failed: it crashed, timed out or ran out of memory (handled errors are responses, not failures).',
  LambdaThrottles: 'Lambda refused invocations of the function: concurrency is exhausted.',
  AuthorizerErrors:
    'API Gateway answered 503 because the authorizer failed (not because it refused a key): no caller gets in.',
  DynamoDBThrottledRequests: 'DynamoDB throttled requests to the table.',
  DynamoDBSystemErrors: 'DynamoDB failed requests to the table on its side (HTTP 500).',
  StatusIndexWriteThrottles:
    "DynamoDB throttled writes to the pets table's status index: a status's creates outgrow its shards (raise statusIndexShards).",
  ShardRecordReadFailures:
    'listPets could not re-read the status index shard record (counters table) and listed the shards it knew; for over a second, filtered listings answer 503.',
  KeyUseRecordFailures:
    'The authorizer let keys in but could not record their last use (keys table): `keys list` shows them unused since their last recorded use.',
} as const;
export type AlarmKind = keyof typeof ALARM_KINDS;

/** The DynamoDB calls the functions make, as their entries list them (shared/api/routes.ts). */
const CALLED: ReadonlySet<`${Operation}`> = new Set(
  FUNCTION_NAMES.flatMap((name) => dynamodbCalls(name).flatMap((calls) => calls.actions)),
);
/**
 * The data-plane calls whose ThrottledRequests and SystemErrors each table's alarms sum: every
 * call a function makes (the key tool's PutItem, Scan and UpdateItem are among them).
 */
export const DYNAMODB_OPERATIONS: Operation[] = Object.values(Operation).filter((operation) => CALLED.has(operation));

interface AlarmDefinition {
  kind: AlarmKind;
  /** What the alarm watches, when there is more than one of its kind: an operation, a function, a table. */
  subject?: string;
  metric: IMetric;
  threshold: number;
  comparison: ComparisonOperator;
  /** Every alarm here reads a metric that is absent when nothing happens: absent is OK. */
  whyNoDataIsOk: string;
}

/**
 * The status index's own write throttles: WriteThrottleEvents with both TableName and
 * GlobalSecondaryIndexName (the TableName dimension alone leaves the index's out; AWS:
 * amazondynamodb/latest/developerguide/TroubleshootingThrottling-cloudwatch.html).
 * OnlineIndexThrottleEvents counts only an index's initial build, not these.
 */
const statusIndexWriteThrottles = (
  tables: MonitoringProps['tables'],
  period: Duration,
  threshold: number,
): AlarmDefinition => ({
  kind: 'StatusIndexWriteThrottles',
  metric: new CloudWatchMetric({
    namespace: 'AWS/DynamoDB',
    metricName: 'WriteThrottleEvents',
    dimensionsMap: { TableName: tables[petsTable.name]!.tableName, GlobalSecondaryIndexName: STATUS_INDEX },
    statistic: 'Sum',
    period,
  }),
  threshold,
  comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
  whyNoDataIsOk: 'DynamoDB publishes throttle events only when there are some',
});

export const createAlarms = (
  scope: Construct,
  props: MonitoringProps,
  /** The stage's alarm topic, and any existing topic the stage names (alarm-topic.ts). */
  actions: readonly IAlarmAction[],
  authorizerErrors: Metric,
): Alarm[] => {
  const { stage, alarms: settings, apiStage, functions, tables } = props;
  const period = Duration.minutes(settings.periodMinutes);
  const atLeast = ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD;

  const definitions: AlarmDefinition[] = [
    {
      kind: 'Api5xxRate',
      metric: new MathExpression({
        // Judged only with enough traffic: one failure in two requests is not a 50 % outage.
        expression: `IF(requests >= ${settings.api5xxMinRequests}, 100 * errors / requests, 0)`,
        usingMetrics: {
          errors: apiStage.metricServerError({ statistic: 'Sum', period }),
          requests: apiStage.metricCount({ statistic: 'Sum', period }),
        },
        label: '5XX responses (% of requests)',
        period,
      }),
      threshold: settings.api5xxRatePercent,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      whyNoDataIsOk: 'no requests, so no failed ones',
    },
    {
      kind: 'ApiLatencyP99',
      metric: apiStage.metricLatency({ statistic: 'p99', period }),
      threshold: settings.apiLatencyP99Ms,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      whyNoDataIsOk: 'no requests, so none was slow',
    },
    // Not the authorizer: a refused key is a thrown "Unauthorized", which Lambda counts as
    // an error. Its faults are AuthorizerErrors, read from the access log.
    ...routes.map(
      ({ operationId }): AlarmDefinition => ({
        kind: 'LambdaErrors',
        subject: operationId,
        metric: functions[operationId].function.metricErrors({ statistic: 'Sum', period }),
        threshold: settings.lambdaErrors,
        comparison: atLeast,
        whyNoDataIsOk: 'no invocations, so no failed ones',
      }),
    ),
    ...Object.entries(functions).map(
      ([name, { function: fn }]): AlarmDefinition => ({
        kind: 'LambdaThrottles',
        subject: name,
        metric: fn.metricThrottles({ statistic: 'Sum', period }),
        threshold: settings.lambdaThrottles,
        comparison: atLeast,
        whyNoDataIsOk: 'no invocations, so none refused',
      }),
    ),
    {
      kind: 'AuthorizerErrors',
      metric: authorizerErrors.with({ period }),
      threshold: settings.authorizerErrors,
      comparison: atLeast,
      whyNoDataIsOk: 'no access-log lines, so no requests to fail',
    },
    ...Object.entries(tables).flatMap(([name, table]): AlarmDefinition[] => [
      {
        kind: 'DynamoDBThrottledRequests',
        subject: name,
        metric: table.metricThrottledRequestsForOperations({ operations: DYNAMODB_OPERATIONS, period }),
        threshold: settings.dynamodbThrottledRequests,
        comparison: atLeast,
        whyNoDataIsOk: 'DynamoDB publishes throttled requests only when there are some',
      },
      {
        kind: 'DynamoDBSystemErrors',
        subject: name,
        metric: table.metricSystemErrorsForOperations({ operations: DYNAMODB_OPERATIONS, period }),
        threshold: settings.dynamodbSystemErrors,
        comparison: atLeast,
        whyNoDataIsOk: 'DynamoDB publishes system errors only when there are some',
      },
    ]),
    statusIndexWriteThrottles(tables, period, settings.dynamodbThrottledRequests),
    {
      kind: 'ShardRecordReadFailures',
      // What the listings' WARN lines count (EMF): no AWS metric tells a failed read of one item.
      metric: emfMetric(stage, 'shardRecordReadFailures', {}, { statistic: 'Sum', period }),
      threshold: settings.shardRecordReadFailures,
      comparison: atLeast,
      whyNoDataIsOk: 'the functions write the metric only when a re-read fails',
    },
    {
      kind: 'KeyUseRecordFailures',
      // What the authorizer's WARN lines count (EMF): the key was let in, so no 5XX or Lambda error shows it.
      metric: emfMetric(stage, 'keyUseRecordFailures', {}, { statistic: 'Sum', period }),
      threshold: settings.keyUseRecordFailures,
      comparison: atLeast,
      whyNoDataIsOk: 'the authorizer writes the metric only when a record of use fails',
    },
  ];

  return definitions.map(({ kind, subject, metric, threshold, comparison, whyNoDataIsOk }) => {
    const id = subject ? `${kind}-${subject}` : kind;
    const alarm = new Alarm(scope, id, {
      metric,
      alarmName: `${stackName(stage)}-${id}`,
      alarmDescription: `${ALARM_KINDS[kind]} No data is OK: ${whyNoDataIsOk}. Runbook: docs/runbook.md, section ${kind}.`,
      threshold,
      comparisonOperator: comparison,
      evaluationPeriods: settings.evaluationPeriods,
      datapointsToAlarm: settings.datapointsToAlarm,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(...actions);
    alarm.addOkAction(...actions);
    return alarm;
  });
};
