// Everything on-call needs for one stage, deployed with it: the alarm topic, the
// alarms, the dashboard and the saved Logs Insights queries. Names and dimensions come
// from shared/observability/metric-names.ts, field names from shared/observability/log-fields.ts and
// infra/access-log.ts, so what is watched is what the functions and the gateway write.
import type { Alarm, Dashboard, IAlarmAction } from 'aws-cdk-lib/aws-cloudwatch';
import { CfnQueryDefinition, FilterPattern, MetricFilter } from 'aws-cdk-lib/aws-logs';
import type { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import {
  AUTHORIZER_ERROR_RESPONSE_TYPES,
  AUTHORIZER_ERRORS_METRIC,
  metricsNamespace,
} from '../../shared/observability/metric-names.ts';
import type { accessLogFields } from '../access-log.ts';
import { stackName } from '../stages.ts';
import { AlarmTopic } from './alarm-topic.ts';
import { createAlarms } from './alarms.ts';
import { createDashboard } from './dashboard.ts';
import { authorizerErrorsMetric } from './metrics.ts';
import type { MonitoringProps } from './props.ts';
import { type LogSource, savedQueries } from './queries.ts';
import { createReleaseAlarms, type ReleaseAlarms } from './release-alarms.ts';

/** The access-log field that names API Gateway's own error response (infra/access-log.ts). */
const ERROR_RESPONSE_TYPE: keyof typeof accessLogFields = 'errorResponseType';

export class Monitoring extends Construct {
  readonly topic: Topic;
  /** What an alarm does to notify: the topic, and any existing topic the stage names. */
  readonly alarmActions: readonly IAlarmAction[];
  /** The topic alone, its subscriptions filtered (alarm-topic.ts): for INSUFFICIENT_DATA actions. */
  readonly filteredAlarmActions: readonly IAlarmAction[];
  readonly alarms: Alarm[];
  /** Each function's alarms on the version a deploy publishes: what its deployment group watches. */
  readonly releaseAlarms: ReleaseAlarms;
  readonly dashboard: Dashboard;
  readonly queries: CfnQueryDefinition[];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const { stage, accessLogGroup, functions } = props;
    const name = stackName(stage);
    const alarmTopic = new AlarmTopic(this, 'AlarmTopic', {
      stage,
      destinations: props.alarmDestinations,
      destinationRequired: props.alarmDestinationRequired,
    });
    this.topic = alarmTopic.topic;
    this.alarmActions = alarmTopic.actions;
    this.filteredAlarmActions = alarmTopic.filteredActions;

    // Every access-log line counts 0 or 1, so the metric has data whenever there is traffic.
    new MetricFilter(this, 'AuthorizerErrorsFilter', {
      logGroup: accessLogGroup,
      filterName: `${name}-${AUTHORIZER_ERRORS_METRIC}`,
      filterPattern: FilterPattern.any(
        ...AUTHORIZER_ERROR_RESPONSE_TYPES.map((type) =>
          FilterPattern.stringValue(`$.${ERROR_RESPONSE_TYPE}`, '=', type),
        ),
      ),
      metricNamespace: metricsNamespace(stage),
      metricName: AUTHORIZER_ERRORS_METRIC,
      metricValue: '1',
      defaultValue: 0,
    });
    const authorizerErrors = authorizerErrorsMetric(stage);

    this.alarms = createAlarms(this, props, alarmTopic.actions, authorizerErrors);
    this.releaseAlarms = createReleaseAlarms(this, props, alarmTopic.actions);
    // The release alarms show beside the others: during a deploy, on-call sees what watches it.
    const shown = [...this.alarms, ...Object.values(this.releaseAlarms).flat()];
    this.dashboard = createDashboard(this, props, shown, authorizerErrors);

    const logGroupName = (source: LogSource): string =>
      source === 'accessLog' ? accessLogGroup.logGroupName : functions[source].logGroup.logGroupName;
    this.queries = savedQueries.map(
      (query) =>
        new CfnQueryDefinition(this, `Query-${query.name}`, {
          // The console shows `/` as folders: one folder per stage.
          name: `${name}/${query.name}`,
          queryString: query.queryString,
          logGroupNames: query.sources.map(logGroupName),
        }),
    );
  }
}
