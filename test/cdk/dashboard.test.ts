// On-call's reading tools in BOTH synthesized stacks: the dashboard with every alarm and every
// operation (traffic, errors by class, latency, saturation), and every saved query on real log
// groups of the stack. The alarms themselves: monitoring.test.ts.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { fieldsReadBy, savedQueries } from '../../infra/monitoring/queries.ts';
import { DEPLOYED_STAGES, stackName, stageSettings } from '../../infra/stages.ts';
import { routes } from '../../shared/api/routes.ts';
import { tables } from '../../shared/dynamodb/tables.ts';
import {
  AUTHORIZER_ERRORS_METRIC,
  METRICS,
  metricsNamespace,
  SERVICE_NAME,
} from '../../shared/observability/metric-names.ts';
import { type CfnTemplate, type StackIndex, type SynthesizedApp, synthesized } from './support/synth.ts';
import { render, resourcesOfType } from './support/template.ts';

let app: SynthesizedApp;
beforeAll(async () => {
  app = await synthesized();
}, 300_000);

const operations = routes.map((r) => r.operationId);

const ref = (logicalId: string) => `\${${logicalId}}`;

describe.each(DEPLOYED_STAGES)('stack %s', (stage) => {
  let template: CfnTemplate;
  let index: StackIndex;
  const _settings = stageSettings[stage];
  beforeAll(() => {
    template = app.template(stage);
    index = app.index[stage];
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
});
