// One dashboard per stage: its alarms, then the golden signals of each operation
// (traffic, errors by class, latency p50/p99, saturation), then the authorizer, the
// tables and the callers of deprecated operations.
import { Duration } from 'aws-cdk-lib';
import {
  type Alarm,
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  type IMetric,
  type IWidget,
  MathExpression,
  type Metric,
  Stats,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import { type OperationId, routes } from '../../shared/api/routes.ts';
import {
  AUTH_FAILURE_REASONS,
  METRICS,
  metricsNamespace,
  SERVICE_NAME,
  STATUS_CLASSES,
} from '../../shared/observability/metric-names.ts';
import { stackName } from '../stages.ts';
import { ALARM_KINDS, DYNAMODB_OPERATIONS } from './alarms.ts';
import { emfMetric } from './metrics.ts';
import type { MonitoringProps } from './props.ts';

const WIDTH = 6;
const HEIGHT = 6;
const graph = (title: string, left: IMetric[], options: { stacked?: boolean; right?: IMetric[] } = {}) =>
  new GraphWidget({ title, left, width: WIDTH, height: HEIGHT, ...options });

export const createDashboard = (
  scope: Construct,
  props: MonitoringProps,
  alarms: Alarm[],
  authorizerErrors: Metric,
): Dashboard => {
  const { stage, apiStage, functions, tables } = props;
  const name = stackName(stage);
  const sum = { statistic: Stats.SUM };

  const operationRow = (operation: OperationId): IWidget[] => {
    const requests = Object.fromEntries(
      STATUS_CLASSES.map((statusClass) => [
        `r${statusClass}`,
        emfMetric(stage, 'requests', { operation, statusClass }, { ...sum, label: statusClass }),
      ]),
    );
    const { function: fn } = functions[operation];
    return [
      graph(`${operation}: traffic (requests)`, [
        new MathExpression({
          expression: `SUM([${Object.keys(requests).join(', ')}])`,
          usingMetrics: requests,
          label: 'requests',
        }),
      ]),
      graph(`${operation}: errors by class`, [
        requests.r4xx!,
        requests.r5xx!,
        emfMetric(stage, 'validationFailures', { operation }, { ...sum, label: 'validation failures (400)' }),
        emfMetric(stage, 'dynamodbFaults', { operation }, { ...sum, label: 'DynamoDB faults (503)' }),
        fn.metricErrors({ ...sum, label: 'Lambda errors' }),
      ]),
      graph(`${operation}: latency (ms)`, [
        emfMetric(stage, 'latency', { operation }, { statistic: Stats.percentile(50), label: 'p50' }),
        emfMetric(stage, 'latency', { operation }, { statistic: Stats.percentile(99), label: 'p99' }),
        fn.metricDuration({ statistic: Stats.percentile(99), label: 'Lambda duration p99' }),
      ]),
      graph(
        `${operation}: saturation`,
        [
          fn.metric('ConcurrentExecutions', { statistic: Stats.MAXIMUM, label: 'concurrency (max)' }),
          fn.metricThrottles({ ...sum, label: 'throttles' }),
        ],
        {
          right: [emfMetric(stage, 'coldStart', { function_name: fn.functionName }, { ...sum, label: 'cold starts' })],
        },
      ),
    ];
  };

  const authorizer = functions.authorizer.function;
  const tableWidgets = Object.entries(tables).flatMap(([tableName, table]) => [
    graph(`table ${tableName}: consumed capacity`, [
      table.metricConsumedReadCapacityUnits({ ...sum, label: 'read units' }),
      table.metricConsumedWriteCapacityUnits({ ...sum, label: 'write units' }),
    ]),
    // One graph each: the two expressions name their per-operation metrics alike.
    graph(`table ${tableName}: throttled requests`, [
      table.metricThrottledRequestsForOperations({ operations: DYNAMODB_OPERATIONS, label: 'throttled requests' }),
    ]),
    graph(`table ${tableName}: system errors`, [
      table.metricSystemErrorsForOperations({ operations: DYNAMODB_OPERATIONS, label: 'system errors' }),
    ]),
  ]);
  // listPets' reads of the counters table's shard record that failed while the listing still answered.
  const shardRecordWidget = graph('listPets: shard record re-reads failed', [
    emfMetric(stage, 'shardRecordReadFailures', {}, { ...sum, label: 'failed re-reads' }),
  ]);
  // The authorizer's records of a key's last use that failed while the key was let in.
  const keyUseWidget = graph("authorizer: keys' last use not recorded", [
    emfMetric(stage, 'keyUseRecordFailures', {}, { ...sum, label: 'failed records' }),
  ]);

  const deprecated = routes.filter((route) => route.deprecation).map((route) => route.operationId);
  const dashboard = new Dashboard(scope, 'Dashboard', {
    dashboardName: name,
    defaultInterval: Duration.hours(3),
  });
  dashboard.addWidgets(
    new TextWidget({
      markdown: `# ${name}\nAlarms first; each one's section in docs/runbook.md says what to open next (${Object.keys(ALARM_KINDS).length} kinds). Saved queries: Logs Insights, folder \`${name}\`.`,
      width: 24,
      height: 2,
    }),
  );
  dashboard.addWidgets(new AlarmStatusWidget({ title: 'alarms', alarms, width: 24, height: 4 }));
  dashboard.addWidgets(
    graph('API: traffic', [apiStage.metricCount({ ...sum, label: 'requests' })]),
    graph('API: errors by class', [
      apiStage.metricClientError({ ...sum, label: '4XX' }),
      apiStage.metricServerError({ ...sum, label: '5XX' }),
    ]),
    graph('API: latency (ms)', [
      apiStage.metricLatency({ statistic: Stats.percentile(50), label: 'p50' }),
      apiStage.metricLatency({ statistic: Stats.percentile(99), label: 'p99' }),
      apiStage.metricIntegrationLatency({ statistic: Stats.percentile(99), label: 'integration p99' }),
    ]),
    graph(
      'authorizer',
      [
        ...AUTH_FAILURE_REASONS.map((reason) =>
          emfMetric(stage, 'authFailures', { reason }, { ...sum, label: `refused: ${reason}` }),
        ),
        authorizerErrors.with({ label: 'authorizer failures (503)' }),
        authorizer.metricThrottles({ ...sum, label: 'throttles' }),
      ],
      { right: [authorizer.metric('ConcurrentExecutions', { statistic: Stats.MAXIMUM, label: 'concurrency (max)' })] },
    ),
  );
  for (const { operationId } of routes) dashboard.addWidgets(...operationRow(operationId));
  dashboard.addWidgets(...tableWidgets, shardRecordWidget, keyUseWidget);
  dashboard.addWidgets(
    ...deprecated.map(
      (operation) =>
        new GraphWidget({
          title: `${operation} (deprecated): calls by key id`,
          // Key ids are not known in advance: every series of the metric, whatever the key.
          left: [
            new MathExpression({
              expression: `SEARCH('{${metricsNamespace(stage)},service,operation,keyId} MetricName="${METRICS.deprecatedCalls.name}" service="${SERVICE_NAME}" operation="${operation}"', 'Sum', 3600)`,
              label: '',
              period: Duration.hours(1),
            }),
          ],
          width: 12,
          height: HEIGHT,
        }),
    ),
  );
  return dashboard;
};
