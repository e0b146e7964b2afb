import { beforeAll, describe, expect, it } from 'vitest';
import { accessLogFields } from '../../infra/access-log.ts';
import type { AlarmSettings } from '../../infra/monitoring/alarm-settings.ts';
import { ALARM_KINDS, type AlarmKind } from '../../infra/monitoring/alarms.ts';
import { RELEASE_ALARM_KINDS } from '../../infra/monitoring/release-alarms.ts';
import { DEPLOYED_STAGES, type DeployedStage, stackName, stageSettings } from '../../infra/stages.ts';
import { dynamodbCalls, FUNCTION_NAMES, type FunctionName, routes } from '../../shared/api/routes.ts';
import { tables } from '../../shared/dynamodb/tables.ts';
import {
  AUTHORIZER_ERROR_RESPONSE_TYPES,
  AUTHORIZER_ERRORS_METRIC,
  metricsNamespace,
  SERVICE_NAME,
} from '../../shared/observability/metric-names.ts';
import {
  type CfnTemplate,
  type Resource,
  type StackIndex,
  type SynthesizedApp,
  synthesized,
  TEST_ALARM_DESTINATION,
} from './support/synth.ts';
import { render, resourcesOfType } from './support/template.ts';

let app: SynthesizedApp;
beforeAll(async () => {
  app = await synthesized();
}, 300_000);

const THRESHOLD_OF: Readonly<Record<AlarmKind, keyof AlarmSettings>> = {
  Api5xxRate: 'api5xxRatePercent',
  ApiLatencyP99: 'apiLatencyP99Ms',
  LambdaErrors: 'lambdaErrors',
  LambdaThrottles: 'lambdaThrottles',
  AuthorizerErrors: 'authorizerErrors',
  DynamoDBThrottledRequests: 'dynamodbThrottledRequests',
  DynamoDBSystemErrors: 'dynamodbSystemErrors',
  // Any throttled index write is a create answered 503: the same bar as the tables' throttles.
  StatusIndexWriteThrottles: 'dynamodbThrottledRequests',
  ShardRecordReadFailures: 'shardRecordReadFailures',
  KeyUseRecordFailures: 'keyUseRecordFailures',
};

const RELEASE_KINDS = Object.keys(RELEASE_ALARM_KINDS);

/**
 * The stage-wide alarms of infra/monitoring/monitoring.ts: the smoke canary's and the SLOs' are
 * test/cdk/watch.test.ts's, the release alarms test/cdk/release.test.ts's.
 */
const monitoringAlarms = (template: CfnTemplate) =>
  resourcesOfType(template, 'AWS::CloudWatch::Alarm').filter(
    ([id, r]) =>
      !id.startsWith('Watch') &&
      !RELEASE_KINDS.some((kind) => (r.Properties!.AlarmName as string).includes(`-${kind}-`)),
  );

const operations = routes.map((r) => r.operationId);
const functionNames = FUNCTION_NAMES;

/** The alarms a stage must have, by name: written out here, not read from the construct. */
const expectedAlarms = (stage: DeployedStage): Map<string, { kind: AlarmKind; subject?: string }> => {
  const all: { kind: AlarmKind; subject?: string }[] = [
    { kind: 'Api5xxRate' },
    { kind: 'ApiLatencyP99' },
    ...operations.map((subject) => ({ kind: 'LambdaErrors' as const, subject })),
    ...functionNames.map((subject) => ({ kind: 'LambdaThrottles' as const, subject })),
    { kind: 'AuthorizerErrors' },
    ...tables.flatMap((t) => [
      { kind: 'DynamoDBThrottledRequests' as const, subject: t.name },
      { kind: 'DynamoDBSystemErrors' as const, subject: t.name },
    ]),
    { kind: 'StatusIndexWriteThrottles' },
    { kind: 'ShardRecordReadFailures' },
    { kind: 'KeyUseRecordFailures' },
  ];
  return new Map(all.map((a) => [`${stackName(stage)}-${a.kind}${a.subject ? `-${a.subject}` : ''}`, a]));
};

interface MetricStat {
  namespace: string;
  name: string;
  dimensions: Record<string, string>;
  stat: string;
  period: number;
}

/** Every metric an alarm reads, whether it reads one metric or an expression over several. */
const metricsOf = (alarm: Resource): MetricStat[] => {
  const p = alarm.Properties!;
  const dims = (list: { Name: string; Value: unknown }[] = []) =>
    Object.fromEntries(list.map((d) => [d.Name, render(d.Value)]));
  if (p.MetricName) {
    return [
      {
        namespace: p.Namespace,
        name: p.MetricName,
        dimensions: dims(p.Dimensions),
        stat: p.Statistic ?? p.ExtendedStatistic,
        period: p.Period,
      },
    ];
  }
  return (p.Metrics as any[])
    .filter((m) => m.MetricStat)
    .map(({ MetricStat: m }) => ({
      namespace: m.Metric.Namespace,
      name: m.Metric.MetricName,
      dimensions: dims(m.Metric.Dimensions),
      stat: m.Stat,
      period: m.Period,
    }));
};

const ref = (logicalId: string) => `\${${logicalId}}`;

describe.each(DEPLOYED_STAGES)('stack %s', (stage) => {
  let template: CfnTemplate;
  let index: StackIndex;
  const settings = stageSettings[stage];
  beforeAll(() => {
    template = app.template(stage);
    index = app.index[stage];
  });
  /** The stage's alarms; the release alarms, which watch a deploy's new version, are test/cdk/release.test.ts's. */
  const alarms = () =>
    new Map(monitoringAlarms(template).map(([id, r]) => [r.Properties!.AlarmName as string, { id, r }]));
  const onlyTopic = () => {
    const topics = resourcesOfType(template, 'AWS::SNS::Topic');
    expect(topics).toHaveLength(1);
    return topics[0]!;
  };

  describe('alarm topic', () => {
    it('is encrypted with a rotated key CloudWatch may use, and refuses plain HTTP', () => {
      const [id, topic] = onlyTopic();
      const keyId = /^\$\{(\w+)\.Arn\}$/.exec(render(topic.Properties!.KmsMasterKeyId))?.[1];
      const key = template.Resources[keyId!]!;
      expect(key.Type).toBe('AWS::KMS::Key');
      expect(key.Properties!.EnableKeyRotation).toBe(true);
      const cloudwatch = (key.Properties!.KeyPolicy.Statement as any[]).find(
        (s) => s.Principal?.Service === 'cloudwatch.amazonaws.com',
      );
      expect(cloudwatch.Action).toEqual(expect.arrayContaining(['kms:Decrypt', 'kms:GenerateDataKey*']));
      const policy = resourcesOfType(template, 'AWS::SNS::TopicPolicy').find(([, p]) =>
        (p.Properties!.Topics as unknown[]).map(render).includes(ref(id)),
      );
      const statements = policy![1].Properties!.PolicyDocument.Statement as any[];
      expect(
        statements.some((s) => s.Effect === 'Deny' && s.Condition?.Bool?.['aws:SecureTransport'] === 'false'),
      ).toBe(true);
    });

    it('subscribes only the destinations set for the deploy (test/cdk/alarm-delivery.test.ts has more)', () => {
      // The tests' synth gives production the one destination it cannot synthesize without.
      const endpoints = resourcesOfType(template, 'AWS::SNS::Subscription').map(([, s]) => s.Properties!.Endpoint);
      expect(endpoints).toEqual(stage === 'production' ? [TEST_ALARM_DESTINATION] : []);
    });
  });

  describe('alarms', () => {
    it('are exactly the expected ones', () => {
      expect([...alarms().keys()].sort()).toEqual([...expectedAlarms(stage).keys()].sort());
    });

    it('each: its threshold and periods from the stage settings, missing data OK, the topic on alarm and on recovery, a runbook section', () => {
      const [topic] = onlyTopic();
      for (const [name, { kind }] of expectedAlarms(stage)) {
        const p = alarms().get(name)!.r.Properties!;
        expect(p.Threshold, name).toBe(settings.alarms[THRESHOLD_OF[kind]]);
        expect(p.EvaluationPeriods).toBe(settings.alarms.evaluationPeriods);
        expect(p.DatapointsToAlarm).toBe(settings.alarms.datapointsToAlarm);
        expect(p.TreatMissingData).toBe('notBreaching');
        expect((p.AlarmActions as unknown[]).map(render)).toEqual([ref(topic)]);
        expect((p.OKActions as unknown[]).map(render)).toEqual([ref(topic)]);
        expect(p.AlarmDescription).toContain(ALARM_KINDS[kind]);
        expect(p.AlarmDescription).toContain(`docs/runbook.md, section ${kind}`);
        for (const metric of metricsOf(alarms().get(name)!.r)) {
          expect(metric.period, name).toBe(settings.alarms.periodMinutes * 60);
          expect(metric.stat, name).toBeTruthy();
        }
      }
    });

    it("read the metrics of the stack's own API stage, functions and tables", () => {
      const api = resourcesOfType(template, 'AWS::ApiGateway::RestApi')[0]![1].Properties!.Name;
      // The stage's name itself (pet-store-stack.ts: a reference would close a dependency cycle).
      const stageName = resourcesOfType(template, 'AWS::ApiGateway::Stage')[0]![1].Properties!.StageName;
      expect(stageName).toBe(stage);
      const apiDimensions = { ApiName: api, Stage: stageName };
      for (const [name, { kind, subject }] of expectedAlarms(stage)) {
        const read = metricsOf(alarms().get(name)!.r);
        expect(read.length, name).toBeGreaterThan(0);
        for (const metric of read) {
          switch (kind) {
            case 'Api5xxRate':
              expect(metric).toMatchObject({ namespace: 'AWS/ApiGateway', dimensions: apiDimensions });
              expect(['5XXError', 'Count']).toContain(metric.name);
              break;
            case 'ApiLatencyP99':
              expect(metric).toMatchObject({
                namespace: 'AWS/ApiGateway',
                name: 'Latency',
                dimensions: apiDimensions,
                stat: 'p99',
              });
              break;
            case 'LambdaErrors':
            case 'LambdaThrottles':
              expect(metric).toMatchObject({
                namespace: 'AWS/Lambda',
                name: kind === 'LambdaErrors' ? 'Errors' : 'Throttles',
                dimensions: { FunctionName: ref(index.functions[subject as FunctionName].function) },
              });
              break;
            case 'AuthorizerErrors':
              expect(metric).toMatchObject({
                namespace: metricsNamespace(stage),
                name: AUTHORIZER_ERRORS_METRIC,
                dimensions: {},
              });
              break;
            case 'DynamoDBThrottledRequests':
            case 'DynamoDBSystemErrors':
              expect(metric).toMatchObject({
                namespace: 'AWS/DynamoDB',
                name: kind === 'DynamoDBThrottledRequests' ? 'ThrottledRequests' : 'SystemErrors',
                dimensions: { TableName: ref(index.tables[subject!]!) },
              });
              break;
            case 'ShardRecordReadFailures':
            case 'KeyUseRecordFailures':
              // The EMF metric a WARN line carries, named as the kind (listPets': test/integration/
              // shard-record-metric.test.ts reads it off the line; the authorizer's: authorizer-last-use.test.ts):
              // the stage's namespace, the one dimension `service`, summed.
              expect(metric).toMatchObject({
                namespace: `PetStore/${stage}`,
                name: kind,
                dimensions: { service: 'petstore' },
                stat: 'Sum',
              });
              break;
            case 'StatusIndexWriteThrottles':
              // With the index's dimension: TableName alone leaves the index's throttles out (alarms.ts cites AWS).
              expect(metric).toMatchObject({
                namespace: 'AWS/DynamoDB',
                name: 'WriteThrottleEvents',
                dimensions: { TableName: ref(index.tables.pets!), GlobalSecondaryIndexName: 'byStatusShard' },
              });
              break;
          }
        }
      }
      // The 5XX rate is judged only above the stage's minimum traffic.
      const rate = alarms().get(`${stackName(stage)}-Api5xxRate`)!.r.Properties!.Metrics as any[];
      expect(rate.find((m) => m.Expression).Expression).toBe(
        `IF(requests >= ${settings.alarms.api5xxMinRequests}, 100 * errors / requests, 0)`,
      );
    });

    it("the tables' alarms sum every DynamoDB call a function's entry lists (shared/api/routes.ts)", () => {
      const listed = new Set(FUNCTION_NAMES.flatMap((name) => dynamodbCalls(name).flatMap((c) => c.actions)));
      expect(listed).toContain('DeleteItem'); // the idempotency table's, which a hand list once missed
      for (const [name, { kind }] of expectedAlarms(stage)) {
        if (!kind.startsWith('DynamoDB')) continue;
        const operations = metricsOf(alarms().get(name)!.r).map(
          (m) => (m.dimensions as { Operation?: string }).Operation,
        );
        expect(new Set(operations), name).toEqual(listed);
      }
    });

    it('AuthorizerErrors is counted from the access log, by a field the deployed access log writes', () => {
      const filters = resourcesOfType(template, 'AWS::Logs::MetricFilter').filter(
        ([, f]) => render(f.Properties!.LogGroupName) === ref(index.accessLogGroup),
      );
      expect(filters).toHaveLength(1);
      const p = filters[0]![1].Properties!;
      expect(p.MetricTransformations).toEqual([
        {
          MetricNamespace: metricsNamespace(stage),
          MetricName: AUTHORIZER_ERRORS_METRIC,
          MetricValue: '1',
          DefaultValue: 0,
        },
      ]);
      for (const type of AUTHORIZER_ERROR_RESPONSE_TYPES)
        expect(p.FilterPattern).toContain(`$.errorResponseType = "${type}"`);
      const format: string = resourcesOfType(template, 'AWS::ApiGateway::Stage')[0]![1].Properties!.AccessLogSetting
        .Format;
      expect(format).toContain(`"errorResponseType":"${accessLogFields.errorResponseType}"`);
    });
  });

  it("every function logs at the stage's level and emits metrics in the stage's namespace", () => {
    const fns = resourcesOfType(template, 'AWS::Lambda::Function').filter(([id]) =>
      Object.values(index.functions).some((f) => f.function === id),
    );
    expect(fns).toHaveLength(functionNames.length);
    for (const [, fn] of fns) {
      expect(fn.Properties!.Environment.Variables).toMatchObject({
        POWERTOOLS_LOG_LEVEL: settings.logLevel,
        POWERTOOLS_METRICS_NAMESPACE: metricsNamespace(stage),
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      });
    }
  });
});
