// On-call's tools in BOTH synthesized stacks: every alarm with its metric, threshold,
// missing-data answer and SNS actions; the dashboard with every operation; every saved
// query on real log groups of the stack; the functions' log level and metric namespace
// from the stage settings. Names come from the same sources the functions write with.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { accessLogFields } from '../../infra/access-log.ts';
import type { AlarmSettings } from '../../infra/monitoring/alarm-settings.ts';
import { ALARM_KINDS, type AlarmKind } from '../../infra/monitoring/alarms.ts';
import { fieldsReadBy, savedQueries } from '../../infra/monitoring/queries.ts';
import { RELEASE_ALARM_KINDS } from '../../infra/monitoring/release-alarms.ts';
import { DEPLOYED_STAGES, type DeployedStage, stackName, stageSettings } from '../../infra/stages.ts';
import { routes } from '../../shared/api/routes.ts';
import { tables } from '../../shared/dynamodb/tables.ts';
import {
  AUTHORIZER_ERROR_RESPONSE_TYPES,
  AUTHORIZER_ERRORS_METRIC,
  METRICS,
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
const functionNames = [...operations, 'authorizer'] as const;

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
                dimensions: { FunctionName: ref(index.functions[subject as (typeof functionNames)[number]].function) },
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
          }
        }
      }
      // The 5XX rate is judged only above the stage's minimum traffic.
      const rate = alarms().get(`${stackName(stage)}-Api5xxRate`)!.r.Properties!.Metrics as any[];
      expect(rate.find((m) => m.Expression).Expression).toBe(
        `IF(requests >= ${settings.alarms.api5xxMinRequests}, 100 * errors / requests, 0)`,
      );
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

  describe('dashboard', () => {
    const body = () => {
      const dashboards = resourcesOfType(template, 'AWS::CloudWatch::Dashboard');
      expect(dashboards).toHaveLength(1);
      expect(dashboards[0]![1].Properties!.DashboardName).toBe(stackName(stage));
      return JSON.parse(render(dashboards[0]![1].Properties!.DashboardBody)) as {
        widgets: { properties: Record<string, any> }[];
      };
    };
    const titles = () =>
      body()
        .widgets.map((w) => w.properties.title as string | undefined)
        .filter(Boolean) as string[];
    /** The metrics of a widget, from rows of [namespace, name, dim, value, …, options]; expressions left out. */
    const metricsIn = (title: string): { metric: string; dimensions: Record<string, string>; stat?: string }[] => {
      const widget = body().widgets.find((w) => w.properties.title === title);
      expect(widget, `no widget "${title}"`).toBeDefined();
      return (widget!.properties.metrics as unknown[][])
        .filter((row) => typeof row[0] === 'string')
        .map((row) => {
          const options = (typeof row.at(-1) === 'object' ? row.at(-1) : {}) as { stat?: string };
          const [namespace, name, ...rest] = row.filter((cell) => typeof cell === 'string') as string[];
          const dimensions: Record<string, string> = {};
          for (let i = 0; i < rest.length; i += 2) dimensions[rest[i]!] = rest[i + 1]!;
          return { metric: `${namespace} ${name}`, dimensions, ...(options.stat && { stat: options.stat }) };
        });
    };

    it('shows every alarm', () => {
      const status = body().widgets.find((w) => w.properties.title === 'alarms')!;
      // The stage-wide and the release alarms; the canary's and the SLOs' have a widget of their own.
      expect(status.properties.alarms.sort()).toEqual(
        resourcesOfType(template, 'AWS::CloudWatch::Alarm')
          .filter(([id]) => !id.startsWith('Watch'))
          .map(([id]) => `\${${id}.Arn}`)
          .sort(),
      );
    });

    it.each(operations)(
      '%s: traffic, errors by class, latency p50/p99 and saturation, from its own metrics',
      (operation) => {
        const fn = { FunctionName: ref(index.functions[operation].function) };
        const ns = metricsNamespace(stage);
        const mine = { service: SERVICE_NAME, operation };
        expect(metricsIn(`${operation}: traffic (requests)`)).toEqual(
          ['2xx', '4xx', '5xx'].map((statusClass) => ({
            metric: `${ns} ${METRICS.requests.name}`,
            dimensions: { ...mine, statusClass },
            stat: 'Sum',
          })),
        );
        expect(metricsIn(`${operation}: errors by class`)).toEqual([
          { metric: `${ns} ${METRICS.requests.name}`, dimensions: { ...mine, statusClass: '4xx' }, stat: 'Sum' },
          { metric: `${ns} ${METRICS.requests.name}`, dimensions: { ...mine, statusClass: '5xx' }, stat: 'Sum' },
          { metric: `${ns} ${METRICS.validationFailures.name}`, dimensions: mine, stat: 'Sum' },
          { metric: `${ns} ${METRICS.dynamodbFaults.name}`, dimensions: mine, stat: 'Sum' },
          { metric: 'AWS/Lambda Errors', dimensions: fn, stat: 'Sum' },
        ]);
        expect(metricsIn(`${operation}: latency (ms)`)).toEqual([
          { metric: `${ns} ${METRICS.latency.name}`, dimensions: mine, stat: 'p50' },
          { metric: `${ns} ${METRICS.latency.name}`, dimensions: mine, stat: 'p99' },
          { metric: 'AWS/Lambda Duration', dimensions: fn, stat: 'p99' },
        ]);
        expect(metricsIn(`${operation}: saturation`)).toEqual([
          { metric: 'AWS/Lambda ConcurrentExecutions', dimensions: fn, stat: 'Maximum' },
          { metric: 'AWS/Lambda Throttles', dimensions: fn, stat: 'Sum' },
          {
            metric: `${ns} ${METRICS.coldStart.name}`,
            dimensions: { service: SERVICE_NAME, function_name: fn.FunctionName },
            stat: 'Sum',
          },
        ]);
      },
    );

    it('tables: consumed capacity and throttles of each; authorizer failures; getPet callers by key id', () => {
      const all = JSON.stringify(body());
      for (const t of tables) {
        const table = ref(index.tables[t.name]!);
        expect(metricsIn(`table ${t.name}: consumed capacity`)).toEqual([
          { metric: 'AWS/DynamoDB ConsumedReadCapacityUnits', dimensions: { TableName: table }, stat: 'Sum' },
          { metric: 'AWS/DynamoDB ConsumedWriteCapacityUnits', dimensions: { TableName: table }, stat: 'Sum' },
        ]);
        for (const [title, name] of [
          ['throttled requests', 'ThrottledRequests'],
          ['system errors', 'SystemErrors'],
        ]) {
          const read = metricsIn(`table ${t.name}: ${title}`);
          expect(read.length).toBeGreaterThan(0);
          for (const m of read)
            expect(m).toMatchObject({ metric: `AWS/DynamoDB ${name}`, dimensions: { TableName: table } });
        }
      }
      expect(all).toContain(AUTHORIZER_ERRORS_METRIC);
      expect(all).toContain(`MetricName=\\"${METRICS.deprecatedCalls.name}\\"`);
      expect(all).toContain(METRICS.authFailures.name);
    });

    it('has every widget the runbook tells on-call to open', () => {
      const runbook = readFileSync(new URL('../../docs/runbook.md', import.meta.url), 'utf8');
      // Widgets are named in italics, outside code: *API: latency*, *table …: system errors*.
      const prose = runbook.replace(/```[\s\S]*?```/g, '').replace(/`[^`]*`/g, '');
      const widgetRefs = [...prose.matchAll(/(?<![*\w])\*([^*\s`][^*`]*)\*(?![*\w])/g)].map((m) => m[1]!);
      expect(widgetRefs.length).toBeGreaterThan(5);
      for (const reference of widgetRefs) {
        const pattern = new RegExp(
          reference
            .split('…')
            .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
            .join('.+'),
        );
        expect(
          titles().some((title) => pattern.test(title)),
          `runbook names *${reference}*`,
        ).toBe(true);
      }
    });
  });

  describe('saved queries', () => {
    const definitions = () =>
      new Map(
        resourcesOfType(template, 'AWS::Logs::QueryDefinition').map(([, r]) => [
          r.Properties!.Name as string,
          r.Properties!,
        ]),
      );
    const functionLogGroups = () =>
      new Map(
        resourcesOfType(template, 'AWS::Lambda::Function').map(([id, f]) => [
          render(f.Properties!.LoggingConfig?.LogGroup),
          ref(id),
        ]),
      );

    it('are exactly the saved queries, in the stage folder, with their query strings', () => {
      expect([...definitions().keys()].sort()).toEqual(savedQueries.map((q) => `${stackName(stage)}/${q.name}`).sort());
      for (const query of savedQueries)
        expect(definitions().get(`${stackName(stage)}/${query.name}`)!.QueryString).toBe(query.queryString);
    });

    it("look where the answer is: a request in the access log and every route function, getPet callers in getPet's log", () => {
      const sourcesOf = (name: string) => savedQueries.find((q) => q.name === name)!.sources;
      expect(sourcesOf('request-by-id')).toEqual(['accessLog', ...operations]);
      expect(sourcesOf('deprecated-callers-by-key')).toEqual(
        routes.filter((r) => r.deprecation).map((r) => r.operationId),
      );
      expect(sourcesOf('auth-failures-by-source-ip')).toEqual(['accessLog']);
    });

    it.each(savedQueries.map((q) => [q.name, q] as const))(
      '%s: reads the real log groups of its sources',
      (_, query) => {
        const groups = (definitions().get(`${stackName(stage)}/${query.name}`)!.LogGroupNames as unknown[]).map(render);
        const expected = query.sources.map((source) =>
          ref(source === 'accessLog' ? index.accessLogGroup : index.functions[source].logGroup),
        );
        expect(groups).toEqual(expected);
        for (const group of groups) {
          const logicalId = group.slice(2, -1);
          expect(template.Resources[logicalId]?.Type).toBe('AWS::Logs::LogGroup');
        }
        // A function's group is the one the function really writes to.
        for (const source of query.sources.filter((s) => s !== 'accessLog')) {
          expect(functionLogGroups().get(ref(index.functions[source].logGroup))).toBe(
            ref(index.functions[source].function),
          );
        }
        // And the access log really writes the fields the access-log-only queries read.
        if (query.sources.every((s) => s === 'accessLog')) {
          const rawFormat: string = resourcesOfType(template, 'AWS::ApiGateway::Stage')[0]![1].Properties!
            .AccessLogSetting.Format;
          const format = JSON.parse(rawFormat.replace(/\$context\.[\w.]+/g, '0')); // as API Gateway fills it
          for (const field of fieldsReadBy(query.queryString)) expect(Object.keys(format)).toContain(field);
        }
      },
    );
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
