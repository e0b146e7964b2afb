// Each stage watched from outside and against its objectives, in BOTH synthesized stacks:
// the smoke canary (runtime, schedule, its own key's secret, its bundle of tools/smoke) and
// its alarm, and the SLO burn-rate alerts (windows, thresholds, budgets) to the alarm topic.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BURN_RATE_ALERTS, SLO_NAMES } from '../../infra/monitoring/slo.ts';
import { DEPLOYED_STAGES, STACK_OUTPUTS, stackName, stageSettings } from '../../infra/stages.ts';
import { type CfnTemplate, type Resource, type SynthesizedApp, synthesized } from './support/synth.ts';
import { grantsOf, render, resourcesOfType } from './support/template.ts';

let app: SynthesizedApp;
beforeAll(async () => {
  app = await synthesized();
}, 300_000);

const only = (template: CfnTemplate, type: string): [string, Resource] => {
  const found = resourcesOfType(template, type);
  expect(found.map(([id]) => id)).toHaveLength(1);
  return found[0]!;
};
/** [logical id, resource] of the alarm (or composite alarm) named `name`. */
const alarmNamed = (template: CfnTemplate, type: string, name: string): [string, Resource] => {
  const found = resourcesOfType(template, type).find(([, r]) => r.Properties!.AlarmName === name);
  expect(found, name).toBeDefined();
  return found!;
};
/** The share of requests each objective lets fail, written out. */
const BUDGETS = { staging: { availability: 0.01, latency: 0.01 }, production: { availability: 0.001, latency: 0.01 } };
const topicOf = (template: CfnTemplate) => only(template, 'AWS::SNS::Topic')[0];

describe.each(DEPLOYED_STAGES)('%s', (stage) => {
  const settings = stageSettings[stage];
  const name = stackName(stage);

  it('runs the read-only smoke checks every 5 minutes on the browserless Node.js runtime, with its key from its secret', () => {
    const template = app.template(stage);
    const [, canary] = only(template, 'AWS::Synthetics::Canary');
    const p = canary.Properties!;
    expect(p.RuntimeVersion).toBe('syn-nodejs-4.1');
    expect(p.Schedule.Expression).toBe(`rate(${settings.canary.everyMinutes} minutes)`);
    expect(p.StartCanaryAfterCreation).toBe(true);
    expect(p.Code.Handler).toBe('index.handler');
    expect(render(p.RunConfig.EnvironmentVariables.SMOKE_BASE_URL)).toBe(
      `https://\${${app.index[stage].restApi}}.execute-api.eu-west-1.\${AWS::URLSuffix}/\${${app.index[stage].apiStage}}/v1`,
    );
    const secretId = render(p.RunConfig.EnvironmentVariables.SMOKE_KEY_SECRET_ARN).slice(2, -1);
    expect(template.Resources[secretId]).toMatchObject({
      Type: 'AWS::SecretsManager::Secret',
      Properties: { Name: `${name}/smoke-canary-key` },
    });
  });

  // A stack's delete (staging's teardown, a failed first create's rollback) removes resources in
  // the reverse order of their dependencies (CloudFormation, "DependsOn attribute"): the bucket is
  // emptied only once the canary is gone, or a run between the emptying and the canary's delete
  // leaves an object, and the bucket's delete (ROLLBACK_FAILED) fails on it.
  it("the canary's bucket, where emptied on delete, is emptied only after the canary is gone", () => {
    const template = app.template(stage);
    const [canaryId, canary] = only(template, 'AWS::Synthetics::Canary');
    const emptying = resourcesOfType(template, 'Custom::S3AutoDeleteObjects');
    if (stageSettings[stage].removalPolicy !== 'destroy') return expect(emptying).toHaveLength(0);
    expect(emptying).toHaveLength(1);
    expect([canary.DependsOn ?? []].flat(), canaryId).toContain(emptying[0]![0]);
  });

  it('bundles tools/smoke/canary.ts as the handler the runtime loads: nodejs/node_modules/index.js', () => {
    const [, canary] = only(app.template(stage), 'AWS::Synthetics::Canary');
    const bundle = join(
      app.dir,
      `asset.${(canary.Properties!.Code.S3Key as string).replace(/\.zip$/, '')}`,
      'nodejs/node_modules/index.js',
    );
    expect(canary.Properties!.Code.Handler).toBe('index.handler');
    const loaded = createRequire(import.meta.url)(bundle) as { handler?: unknown };
    expect(typeof loaded.handler).toBe('function');
  });

  it('its role writes its reports, logs and metrics and reads its own secret, nothing else', () => {
    const template = app.template(stage);
    const [, canary] = only(template, 'AWS::Synthetics::Canary');
    const role = render(canary.Properties!.ExecutionRoleArn).slice(2, -5);
    const grants = grantsOf(
      // Conditions are read by grantsOf as unexpected: strip the one PutMetricData condition, checked below.
      JSON.parse(
        JSON.stringify(template).replace(
          /"Condition":\{"StringEquals":\{"cloudwatch:namespace":"CloudWatchSynthetics"\}\},/g,
          '',
        ),
      ),
      role,
    );
    expect(grants.map((g) => g.split(' ')[1])).toEqual(
      expect.arrayContaining([
        'secretsmanager:GetSecretValue',
        's3:PutObject',
        'cloudwatch:PutMetricData',
        'logs:PutLogEvents',
      ]),
    );
    const secret = render(canary.Properties!.RunConfig.EnvironmentVariables.SMOKE_KEY_SECRET_ARN);
    expect(grants.filter((g) => g.startsWith('Allow secretsmanager:'))).toEqual([
      `Allow secretsmanager:DescribeSecret ${secret}`,
      `Allow secretsmanager:GetSecretValue ${secret}`,
    ]);
    expect(grants.some((g) => /dynamodb|apigateway|\*$/.test(g.split(' ')[1]!))).toBe(false);
    expect(JSON.stringify(template.Resources[role]!.Properties!.Policies)).toContain(
      '"cloudwatch:namespace":"CloudWatchSynthetics"',
    );
  });

  // AWS's documented minimum for a canary's role (CloudWatch User Guide, "Required roles and
  // permissions for canaries": https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Synthetics_Canaries_CanaryPermissions.html):
  // s3:PutObject and s3:GetObject on its results path.
  it('its role may put and get the objects of its results path, as AWS documents for a canary', () => {
    const template = app.template(stage);
    const [, canary] = only(template, 'AWS::Synthetics::Canary');
    const role = render(canary.Properties!.ExecutionRoleArn).slice(2, -5);
    const policy = JSON.stringify(template.Resources[role]!.Properties!.Policies);
    const [bucket] = only(template, 'AWS::S3::Bucket');
    expect(render(canary.Properties!.ArtifactS3Location)).toBe(`s3://\${${bucket}}/runs`);
    const statements = (template.Resources[role]!.Properties!.Policies as { PolicyDocument: { Statement: any[] } }[])
      .flatMap((p) => p.PolicyDocument.Statement)
      .filter((s) => render(s.Resource) === `\${${bucket}.Arn}/runs/*`);
    expect(statements.flatMap((s) => [s.Action].flat()).sort()).toEqual(['s3:GetObject', 's3:PutObject']);
    // It may not make log groups: the stack makes its one (next test), which a run would otherwise race.
    expect(policy).not.toContain('logs:CreateLogGroup');
  });

  // Synthetics names the canary's function cwsyn-<canary name>-<canary id>, and Lambda logs it to
  // /aws/lambda/<function name> (aws/aws-cdk#23718 shows such a group, left with no retention).
  it("makes the canary's log group, named after the canary's id, with the stage's retention", () => {
    const template = app.template(stage);
    const [canaryId, canary] = only(template, 'AWS::Synthetics::Canary');
    const groups = resourcesOfType(template, 'AWS::Logs::LogGroup').filter(([, r]) =>
      String(render(r.Properties!.LogGroupName)).startsWith('/aws/lambda/cwsyn-'),
    );
    expect(groups).toHaveLength(1);
    const [, group] = groups[0]!;
    expect(render(group.Properties!.LogGroupName)).toBe(
      `/aws/lambda/cwsyn-${canary.Properties!.Name}-\${${canaryId}.Id}`,
    );
    expect(group.Properties!.RetentionInDays).toBe(settings.logRetentionDays);
    expect(group.DeletionPolicy).toBe(settings.removalPolicy === 'retain' ? 'Retain' : 'Delete');
  });

  // A new alarm starts in INSUFFICIENT_DATA and runs the actions of the state its first evaluation
  // gives ("When this operation creates an alarm, the alarm state is immediately set to
  // INSUFFICIENT_DATA. The alarm is then evaluated and its state is set appropriately. Any actions
  // associated with the new state are then executed":
  // https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_PutMetricAlarm.html).
  // Before the canary's first run there is no data: "breaching" made that ALARM, a page on every
  // first deploy. "missing" keeps the alarm's state while data is missing and goes to
  // INSUFFICIENT_DATA when the whole evaluation range has none
  // (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/AlarmThatSendsEmail.html#alarms-and-missing-data).
  it('alarms to the stage topic after consecutive failed runs, and when the canary stops running', () => {
    const template = app.template(stage);
    const alarm = alarmNamed(template, 'AWS::CloudWatch::Alarm', `${name}-SmokeCanary`)[1].Properties!;
    expect(alarm).toMatchObject({
      Namespace: 'CloudWatchSynthetics',
      MetricName: 'SuccessPercent',
      Statistic: 'Minimum',
      Threshold: 100,
      ComparisonOperator: 'LessThanThreshold',
      Period: settings.canary.everyMinutes * 60,
      EvaluationPeriods: settings.canary.failedRunsToAlarm,
      DatapointsToAlarm: settings.canary.failedRunsToAlarm,
      TreatMissingData: 'missing',
    });
    const topic = topicOf(template);
    expect(alarm.AlarmActions.map(render)).toContain(`\${${topic}}`);
    expect(alarm.OKActions.map(render)).toContain(`\${${topic}}`);
    // A canary that stops running: INSUFFICIENT_DATA, to the stage's topic alone (its subscriptions
    // filter out the creation's INSUFFICIENT_DATA; an existing topic named as a destination would not).
    expect(alarm.InsufficientDataActions.map(render)).toEqual([`\${${topic}}`]);
    const [secret] = resourcesOfType(template, 'AWS::SecretsManager::Secret').find(([id]) =>
      id.startsWith('WatchSmokeCanary'),
    )!;
    expect(render(template.Outputs[STACK_OUTPUTS.canaryKeySecretArn]!.Value)).toBe(`\${${secret}}`);
  });

  it.each(SLO_NAMES)(
    '%s SLO: a fast burn and a slow burn alert, each long window AND short window, to the topic',
    (slo) => {
      const template = app.template(stage);
      const { latencyBoundMs, minRequestsPerWindow } = settings.slo;
      const budget = BUDGETS[stage][slo];
      expect(Object.keys(BURN_RATE_ALERTS)).toEqual(['SloFastBurn', 'SloSlowBurn']);
      for (const [alert, { burnRate, longWindowMinutes, shortWindowMinutes, severity }] of Object.entries(
        BURN_RATE_ALERTS,
      )) {
        const composite = alarmNamed(template, 'AWS::CloudWatch::CompositeAlarm', `${name}-${alert}-${slo}`)[1]
          .Properties!;
        expect(composite.AlarmDescription).toMatch(new RegExp(`^${severity.toUpperCase()}: `));
        expect(composite.AlarmActions.map(render)).toEqual([`\${${topicOf(template)}}`]);
        const windows = [longWindowMinutes, shortWindowMinutes].map((minutes) => {
          const [id, window] = alarmNamed(template, 'AWS::CloudWatch::Alarm', `${name}-${alert}-${slo}-${minutes}m`);
          return { id, minutes, window: window.Properties! };
        });
        expect(render(composite.AlarmRule)).toBe(
          `(${windows.map(({ id }) => `ALARM("\${${id}.Arn}")`).join(' AND ')})`,
        );
        for (const { minutes, window } of windows) {
          expect(window).toMatchObject({
            Threshold: burnRate,
            ComparisonOperator: 'GreaterThanOrEqualToThreshold',
            EvaluationPeriods: 1,
            TreatMissingData: 'notBreaching',
          });
          expect(window.AlarmActions).toBeUndefined();
          const metrics = window.Metrics as {
            Id: string;
            Expression?: string;
            MetricStat?: { Period: number; Stat: string; Metric: { MetricName: string } };
          }[];
          const expression = metrics.find((m) => m.Expression)!.Expression!;
          expect(expression).toBe(
            slo === 'availability'
              ? `IF(requests${minutes}m >= ${minRequestsPerWindow}, (errors${minutes}m / requests${minutes}m) / ${budget}, 0)`
              : `IF(requests${minutes}m >= ${minRequestsPerWindow}, ((100 - fast${minutes}m) / 100) / ${budget}, 0)`,
          );
          const stats = metrics
            .filter((m) => m.MetricStat)
            .map((m) => [m.MetricStat!.Metric.MetricName, m.MetricStat!.Stat, m.MetricStat!.Period]);
          expect(stats).toEqual(
            expect.arrayContaining([
              ['Count', 'Sum', minutes * 60],
              slo === 'availability'
                ? ['5XXError', 'Sum', minutes * 60]
                : ['Latency', `PR(:${latencyBoundMs})`, minutes * 60],
            ]),
          );
        }
      }
    },
  );

  it('shows the SLO alerts and the canary on the dashboard', () => {
    const [, dashboard] = only(app.template(stage), 'AWS::CloudWatch::Dashboard');
    const body = render(dashboard.Properties!.DashboardBody);
    expect(body).toContain('SLO alerts and smoke canary');
    expect(body).toContain('error budget burn rate');
  });
});
