// The stage watched from outside and against its objectives: the smoke canary and the
// SLO burn-rate alerts, both to the stage's alarm topic, with a row of their own on the
// stage's dashboard (below the alarms of monitoring.ts).
import { Duration } from 'aws-cdk-lib';
import type { StageBase } from 'aws-cdk-lib/aws-apigateway';
import {
  AlarmStatusWidget,
  type Dashboard,
  GraphWidget,
  type HorizontalAnnotation,
  type IAlarmAction,
  Stats,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import type { StageSettings } from '../stages.ts';
import { SmokeCanary } from './canary.ts';
import { BURN_RATE_ALERTS, ServiceLevelObjectives, SLO_NAMES } from './slo.ts';

export interface WatchProps {
  readonly settings: StageSettings;
  readonly baseUrl: string;
  readonly apiStage: StageBase;
  readonly alarmActions: readonly IAlarmAction[];
  /** Where the canary's alarm goes when its runs stop: the stage's topic alone (alarm-topic.ts). */
  readonly noDataActions: readonly IAlarmAction[];
  readonly dashboard: Dashboard;
}

export class Watch extends Construct {
  readonly canary: SmokeCanary;
  readonly slo: ServiceLevelObjectives;

  constructor(
    scope: Construct,
    id: string,
    { settings, baseUrl, apiStage, alarmActions, noDataActions, dashboard }: WatchProps,
  ) {
    super(scope, id);
    const { stage } = settings;
    this.canary = new SmokeCanary(this, 'SmokeCanary', {
      stage,
      settings: settings.canary,
      storage: settings,
      baseUrl,
      alarmActions,
      noDataActions,
    });
    this.slo = new ServiceLevelObjectives(this, 'Slo', { stage, settings: settings.slo, apiStage, alarmActions });

    const fast = BURN_RATE_ALERTS.SloFastBurn;
    dashboard.addWidgets(
      new TextWidget({
        markdown: `## From outside and against the objectives\nSLOs: ${SLO_NAMES.map((slo) => this.slo.objective(slo)).join('; ')}. A fast burn (${fast.burnRate}×) pages, a slow burn (${BURN_RATE_ALERTS.SloSlowBurn.burnRate}×) opens a ticket; the smoke canary runs the read-only smoke checks every ${settings.canary.everyMinutes} minutes (docs/runbook.md).`,
        width: 24,
        height: 2,
      }),
    );
    dashboard.addWidgets(
      new AlarmStatusWidget({
        title: 'SLO alerts and smoke canary',
        alarms: [...this.slo.alerts, this.canary.alarm],
        width: 24,
        height: 3,
      }),
    );
    dashboard.addWidgets(
      ...SLO_NAMES.map(
        (slo) =>
          new GraphWidget({
            title: `${slo}: error budget burn rate`,
            left: [this.slo.burnRate(slo, fast.longWindowMinutes), this.slo.burnRate(slo, fast.shortWindowMinutes)],
            leftAnnotations: Object.entries(BURN_RATE_ALERTS).map(
              ([alert, { burnRate }]): HorizontalAnnotation => ({ value: burnRate, label: alert }),
            ),
            width: 8,
            height: 6,
          }),
      ),
      new GraphWidget({
        title: 'smoke canary',
        left: [
          this.canary.canary.metricSuccessPercent({
            statistic: Stats.MINIMUM,
            period: Duration.minutes(settings.canary.everyMinutes),
            label: 'success (%)',
          }),
        ],
        right: [this.canary.canary.metricDuration({ statistic: Stats.MAXIMUM, label: 'run time (ms)' })],
        width: 8,
        height: 6,
      }),
    );
  }
}
