// The alarms that watch a release: the version this deploy publishes, alone, while CodeDeploy
// shifts traffic to it (infra/constructs/deployment.ts rolls back when one fires). The stage's
// alarms (alarms.ts) mix versions, judge several minutes and may already be in ALARM for a
// reason the release does not cause (then every deploy, the fix included, would roll back);
// these count only what the new version does, minute by minute, so that they can fire inside
// the canary (minutesToAlarm, docs/runbook.md: Releases). Each alarm's dimensions name the new
// version, so every deploy repoints them before the shift starts (deployment.ts orders it).
import { Duration } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  type IAlarmAction,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import { type FunctionName, type OperationId, routes } from '../../shared/api/routes.ts';
import { LIVE_ALIAS } from '../constructs/api-function.ts';
import { stackName } from '../stages.ts';
import { RELEASE_ALARM_PERIOD_MINUTES, type ReleaseAlarmSettings } from './alarm-settings.ts';
import { emfMetric } from './metrics.ts';
import type { MonitoredFunction, MonitoringProps } from './props.ts';

/** What each release alarm means; docs/runbook.md has a section per kind. */
export const RELEASE_ALARM_KINDS = {
  ReleaseFaults:
    'The new version answered too large a share of its requests with a 5XX while CodeDeploy shifted traffic to it.',
  ReleaseErrors:
    'Invocations of the new version failed (crash, timeout, out of memory) while CodeDeploy shifted traffic to it.',
  ReleaseRefusals:
    'The new authorizer let in a smaller share of callers than the versions still serving, in the same minute.',
} as const;
type ReleaseAlarmKind = keyof typeof RELEASE_ALARM_KINDS;

/** The release alarms of each function: what its deployment group watches. Typed, never looked up by name. */
export type ReleaseAlarms = Readonly<Record<FunctionName, readonly Alarm[]>>;

const period = Duration.minutes(RELEASE_ALARM_PERIOD_MINUTES);

/** AWS/Lambda's metric of the invocations through `live`: all versions, or the one that ran them. */
const lambdaMetric = (name: string, { function: fn }: MonitoredFunction, executedVersion?: string): Metric =>
  new Metric({
    namespace: 'AWS/Lambda',
    metricName: name,
    dimensionsMap: {
      FunctionName: fn.functionName,
      Resource: `${fn.functionName}:${LIVE_ALIAS}`,
      ...(executedVersion !== undefined && { ExecutedVersion: executedVersion }),
    },
    statistic: 'Sum',
    period,
  });

export const createReleaseAlarms = (
  scope: Construct,
  props: MonitoringProps,
  actions: readonly IAlarmAction[],
): ReleaseAlarms => {
  const { stage, functions } = props;
  const settings: ReleaseAlarmSettings = props.releaseAlarms;
  const alarm = (kind: ReleaseAlarmKind, subject: FunctionName, metric: MathExpression | Metric, threshold: number) => {
    const id = `${kind}-${subject}`;
    const created = new Alarm(scope, id, {
      metric,
      alarmName: `${stackName(stage)}-${id}`,
      alarmDescription:
        `${RELEASE_ALARM_KINDS[kind]} Watches only the version this deploy published; CodeDeploy rolls back when it ` +
        `fires. No data (no traffic on the new version) is OK. See docs/runbook.md, section ${kind}.`,
      threshold,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: settings.datapoints,
      datapointsToAlarm: settings.datapoints,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    created.addAlarmAction(...actions);
    created.addOkAction(...actions);
    return created;
  };

  const faults = (operation: OperationId): Alarm => {
    const executedVersion = functions[operation].version.version;
    const answers = (statistic: string) =>
      emfMetric(stage, 'versionFaults', { operation, executedVersion }, { statistic, period });
    return alarm(
      'ReleaseFaults',
      operation,
      new MathExpression({
        // Judged only with enough answers: one fault in two answers is not a 50 % failure.
        expression: `IF(answers >= ${settings.minAnswers}, 100 * share, 0)`,
        usingMetrics: { answers: answers('SampleCount'), share: answers('Average') },
        label: `${operation}: 5XX answers of the new version (%)`,
        period,
      }),
      settings.faultRatePercent,
    );
  };

  const errors = (name: FunctionName): Alarm =>
    alarm(
      'ReleaseErrors',
      name,
      lambdaMetric('Errors', functions[name], functions[name].version.version),
      settings.lambdaErrors,
    );

  // A refused key ends in a thrown "Unauthorized", which Lambda counts as an error: for the
  // authorizer, Errors / Invocations is the share of callers not let in (refused or failed).
  const refusals = (): Alarm => {
    const authorizer = functions.authorizer;
    const version = authorizer.version.version;
    return alarm(
      'ReleaseRefusals',
      'authorizer',
      new MathExpression({
        // The new version's share, less the share of the versions still serving in the same minute.
        expression:
          `IF(newCalls >= ${settings.minAuthorizations}, ` +
          '100 * FILL(newRefused, 0) / newCalls - 100 * FILL(allRefused - newRefused, 0) / MAX([FILL(allCalls - newCalls, 0), 1]), 0)',
        usingMetrics: {
          newCalls: lambdaMetric('Invocations', authorizer, version),
          newRefused: lambdaMetric('Errors', authorizer, version),
          allCalls: lambdaMetric('Invocations', authorizer),
          allRefused: lambdaMetric('Errors', authorizer),
        },
        label: 'authorizer: refusal share of the new version above the old (points)',
        period,
      }),
      settings.refusalRisePoints,
    );
  };

  const byFunction = {} as Record<FunctionName, Alarm[]>;
  for (const { operationId } of routes) byFunction[operationId] = [faults(operationId), errors(operationId)];
  byFunction.authorizer = [refusals()];
  return byFunction;
};
