// The alarms on the steps that fail while the answer does not: a WARN line's EMF metric, listPets'
// re-reads of the shard record (test/integration/shard-record-metric.test.ts) and the authorizer's
// records of a key's last use (test/integration/authorizer-last-use.test.ts). Beside
// monitoring.test.ts, which holds every alarm's metric and threshold to the stage settings.
import { beforeAll, expect, it } from 'vitest';
import { type SynthesizedApp, synthesized } from './support/synth.ts';
import { resourcesOfType } from './support/template.ts';

let app: SynthesizedApp;
beforeAll(async () => {
  app = await synthesized();
}, 300_000);

// As CloudFormation takes them (AWS::CloudWatch::Alarm, https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-resource-cloudwatch-alarm.html):
// written out here, so that dropping an alarm, its metric or its dimension turns this red.
it.each([
  ['failed shard-record re-reads', 'ShardRecordReadFailures'],
  ["keys' last uses not recorded", 'KeyUseRecordFailures'],
])('production pages on %s: one a minute in 3 of 5 minutes, missing data OK', (_, name) => {
  const found = resourcesOfType(app.template('production'), 'AWS::CloudWatch::Alarm').filter(
    ([, r]) => r.Properties!.AlarmName === `PetStore-production-${name}`,
  );
  expect(found).toHaveLength(1);
  expect(found[0]![1].Properties).toMatchObject({
    Namespace: 'PetStore/production',
    MetricName: name,
    Dimensions: [{ Name: 'service', Value: 'petstore' }],
    Statistic: 'Sum',
    Period: 60,
    Threshold: 1,
    ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    EvaluationPeriods: 5,
    DatapointsToAlarm: 3,
    TreatMissingData: 'notBreaching',
  });
  expect(found[0]![1].Properties!.AlarmDescription).toContain(`docs/runbook.md, section ${name}`);
});
