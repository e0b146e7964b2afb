// The stage's service level objectives and their error budgets, watched with the SRE
// workbook's multi-window, multi-burn-rate alerts (chapter "Alerting on SLOs"): a budget
// that burns fast pages, one that burns slowly opens a ticket. Each alert is a composite
// alarm: the burn rate over a long window (the budget is really going) AND over a short
// one (it is still going now, so the alert also ends soon after the fault does).
//
// Built from metric-math alarms on API Gateway's own metrics rather than Application
// Signals' SLO resources: those need Application Signals turned on for the whole account
// (a setting no stack of one service should own, like API Gateway's log role), and their
// burn-rate alarms would still be alarms that we write. Here every window is a template
// resource that the tests pin and cfn-lint checks.
import { Duration } from 'aws-cdk-lib';
import type { StageBase } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  AlarmRule,
  AlarmState,
  ComparisonOperator,
  CompositeAlarm,
  type IAlarmAction,
  type IMetric,
  MathExpression,
  Stats,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { type DeployedStage, stackName } from '../stages.ts';
import type { SloSettings } from './watch-settings.ts';

/** The SRE workbook's two alerts for a 30-day budget. */
export const BURN_RATE_ALERTS = {
  /** 14.4×: 2 % of the month's budget gone in an hour; the budget would last ~2 days. */
  SloFastBurn: { severity: 'page', burnRate: 14.4, longWindowMinutes: 60, shortWindowMinutes: 5 },
  /** 6×: 5 % of the budget gone in 6 hours; it would last 5 days. */
  SloSlowBurn: { severity: 'ticket', burnRate: 6, longWindowMinutes: 360, shortWindowMinutes: 30 },
} as const;
type BurnRateAlert = keyof typeof BURN_RATE_ALERTS;
export const SLO_NAMES = ['availability', 'latency'] as const;
export type SloName = (typeof SLO_NAMES)[number];

export interface ServiceLevelObjectivesProps {
  readonly stage: DeployedStage;
  readonly settings: SloSettings;
  readonly apiStage: StageBase;
  readonly alarmActions: readonly IAlarmAction[];
}

export class ServiceLevelObjectives extends Construct {
  /** The alerts that notify, by SLO and alert: PetStore-<stage>-SloFastBurn-availability, … */
  readonly alerts: CompositeAlarm[] = [];
  /** Every window's alarm (no action of their own: the composite alarms notify). */
  readonly windows: Alarm[] = [];
  readonly settings: SloSettings;
  readonly #apiStage: StageBase;

  constructor(scope: Construct, id: string, { stage, settings, apiStage, alarmActions }: ServiceLevelObjectivesProps) {
    super(scope, id);
    this.settings = settings;
    this.#apiStage = apiStage;
    const name = stackName(stage);
    for (const slo of SLO_NAMES) {
      for (const [alert, { severity, burnRate, longWindowMinutes, shortWindowMinutes }] of Object.entries(
        BURN_RATE_ALERTS,
      ) as [BurnRateAlert, (typeof BURN_RATE_ALERTS)[BurnRateAlert]][]) {
        const window = (minutes: number) => {
          const alarm = new Alarm(this, `${alert}-${slo}-${minutes}m`, {
            alarmName: `${name}-${alert}-${slo}-${minutes}m`,
            alarmDescription: `Burn rate of the ${slo} error budget over ${minutes} minutes at or above ${burnRate}×. Part of ${name}-${alert}-${slo}, which notifies; this one does not.`,
            metric: this.burnRate(slo, minutes),
            threshold: burnRate,
            comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            evaluationPeriods: 1,
            treatMissingData: TreatMissingData.NOT_BREACHING,
          });
          this.windows.push(alarm);
          return alarm;
        };
        const composite = new CompositeAlarm(this, `${alert}-${slo}`, {
          compositeAlarmName: `${name}-${alert}-${slo}`,
          alarmDescription: `${severity.toUpperCase()}: the ${slo} SLO (${this.objective(slo)}) burns its error budget at ${burnRate}× or more, over ${longWindowMinutes} and over the last ${shortWindowMinutes} minutes. Runbook: docs/runbook.md, section ${alert}.`,
          alarmRule: AlarmRule.allOf(
            AlarmRule.fromAlarm(window(longWindowMinutes), AlarmState.ALARM),
            AlarmRule.fromAlarm(window(shortWindowMinutes), AlarmState.ALARM),
          ),
        });
        composite.addAlarmAction(...alarmActions);
        composite.addOkAction(...alarmActions);
        this.alerts.push(composite);
      }
    }
  }

  /** The objective in words, e.g. `99.9 % of requests not answered 5XX`. */
  objective(slo: SloName): string {
    const { availabilityPercent, latencyPercent, latencyBoundMs } = this.settings;
    return slo === 'availability'
      ? `${availabilityPercent} % of requests not answered 5XX`
      : `${latencyPercent} % of requests answered within ${latencyBoundMs} ms`;
  }

  /**
   * How fast the SLO's budget burns over `minutes`: the share of bad requests divided by the
   * share the objective allows (1: the budget lasts exactly the 30 days). Not judged (0)
   * under `minRequestsPerWindow` requests.
   */
  burnRate(slo: SloName, minutes: number): MathExpression {
    const period = Duration.minutes(minutes);
    const { availabilityPercent, latencyPercent, latencyBoundMs, minRequestsPerWindow } = this.settings;
    // The share of requests the objective lets fail, rounded so that the expression reads 0.001, not 0.000999….
    const budget = Math.round((100 - (slo === 'availability' ? availabilityPercent : latencyPercent)) * 1e4) / 1e6;
    // Ids unique per window: a graph that shows two windows must not see two metrics named alike.
    const [errors, fast, total] = ['errors', 'fast', 'requests'].map((id) => `${id}${minutes}m`);
    const requests = { [total!]: this.#apiStage.metricCount({ statistic: Stats.SUM, period }) };
    const badShare: { expression: string; usingMetrics: Record<string, IMetric> } =
      slo === 'availability'
        ? {
            expression: `${errors} / ${total}`,
            usingMetrics: {
              ...requests,
              [errors!]: this.#apiStage.metricServerError({ statistic: Stats.SUM, period }),
            },
          }
        : // Percentile rank: the percentage of requests whose latency was at most the bound.
          {
            expression: `(100 - ${fast}) / 100`,
            usingMetrics: {
              ...requests,
              [fast!]: this.#apiStage.metricLatency({ statistic: Stats.percentileRank(latencyBoundMs), period }),
            },
          };
    return new MathExpression({
      expression: `IF(${total} >= ${minRequestsPerWindow}, (${badShare.expression}) / ${budget}, 0)`,
      usingMetrics: badShare.usingMetrics,
      label: `${slo} burn rate over ${minutes} min`,
      period,
    });
  }
}
