// The deployed stages as on-call and platform engineers meet them (issue 11): active tracing,
// versions behind a `live` alias shifted by CodeDeploy with rollback alarms (test/cdk/release.test.ts
// has the rest of a release), the authorizer's
// reserved concurrency, 502 for a failed integration, a 404 for every path and method the
// route table lacks, and an alarm topic CloudWatch may publish to.
import { beforeAll, describe, expect, test } from 'vitest';
import { LIVE_ALIAS } from '../../infra/constructs/api-function.ts';
import { DEPLOYED_STAGES, stackName, stageSettings } from '../../infra/stages.ts';
import { FUNCTION_NAMES, type FunctionName } from '../../shared/api/routes.ts';
import { type SynthesizedApp, synthesized } from './support/synth.ts';
import { catchAllMethods, render, resource, resourcesOfType, routeMethods } from './support/template.ts';

let app: SynthesizedApp;
beforeAll(async () => {
  app = await synthesized();
}, 300_000);

describe.each(DEPLOYED_STAGES)('stage %s', (stage) => {
  const settings = stageSettings[stage];
  const ids = () => app.index[stage];
  const template = () => app.template(stage);
  const fn = (name: FunctionName) => resource(template(), ids().functions[name].function);

  test('every function traces actively, as the API stage does', () => {
    for (const name of FUNCTION_NAMES) expect(fn(name).Properties!.TracingConfig, name).toEqual({ Mode: 'Active' });
    expect(resource(template(), ids().apiStage).Properties!.TracingEnabled).toBe(true);
  });

  test('every function is published as a version, with a `live` alias on it', () => {
    for (const name of FUNCTION_NAMES) {
      const alias = resource(template(), ids().functions[name].alias);
      expect(alias.Type).toBe('AWS::Lambda::Alias');
      expect(alias.Properties!.Name).toBe(LIVE_ALIAS);
      expect(render(alias.Properties!.FunctionName)).toBe(`\${${ids().functions[name].function}}`);
      const version = render(alias.Properties!.FunctionVersion).match(/^\$\{(\w+)\.Version\}$/)?.[1];
      expect(resource(template(), version!).Type, name).toBe('AWS::Lambda::Version');
    }
  });

  test('only the authorizer has reserved concurrency, the amount of the stage settings', () => {
    expect(fn('authorizer').Properties!.ReservedConcurrentExecutions).toBe(settings.authorizerReservedConcurrency);
    for (const name of FUNCTION_NAMES.filter((n) => n !== 'authorizer'))
      expect(fn(name).Properties!.ReservedConcurrentExecutions, name).toBeUndefined();
  });

  describe('CodeDeploy', () => {
    const groups = () => resourcesOfType(template(), 'AWS::CodeDeploy::DeploymentGroup');
    const alarmNames = () =>
      new Map(resourcesOfType(template(), 'AWS::CloudWatch::Alarm').map(([id, a]) => [id, a.Properties!.AlarmName]));

    test('each alias shifts through its own deployment group, which CloudFormation waits for', () => {
      expect(groups()).toHaveLength(FUNCTION_NAMES.length);
      for (const name of FUNCTION_NAMES) {
        const policy = resource(template(), ids().functions[name].alias).UpdatePolicy?.CodeDeployLambdaAliasUpdate;
        expect(policy, name).toBeDefined();
        expect(groups().map(([id]) => id)).toContain(render(policy.DeploymentGroupName).slice(2, -1));
      }
    });

    test('each group rolls back on its own release alarms, on a failed check and when stopped', () => {
      const names = alarmNames();
      const watched = new Map(
        groups().map(([id, g]) => {
          expect(g.Properties!.AutoRollbackConfiguration).toEqual({
            Enabled: true,
            Events: ['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_REQUEST', 'DEPLOYMENT_STOP_ON_ALARM'],
          });
          expect(g.Properties!.AlarmConfiguration.Enabled).toBe(true);
          const alarms = (g.Properties!.AlarmConfiguration.Alarms as { Name: unknown }[])
            .map(({ Name }) => names.get(render(Name).slice(2, -1)))
            .sort();
          return [id, alarms] as const;
        }),
      );
      // Each function's alias names its group; the group watches that function's alarms only.
      for (const name of FUNCTION_NAMES) {
        const policy = resource(template(), ids().functions[name].alias).UpdatePolicy!.CodeDeployLambdaAliasUpdate;
        const expected =
          name === 'authorizer' ? ['ReleaseRefusals-authorizer'] : [`ReleaseErrors-${name}`, `ReleaseFaults-${name}`];
        expect(watched.get(render(policy.DeploymentGroupName).slice(2, -1)), name).toEqual(
          expected.map((id) => `${stackName(stage)}-${id}`),
        );
      }
    });

    test(`shifts ${settings.deployment.percent} % for ${settings.deployment.minutes} minutes first (canary)`, () => {
      const configs = new Set(groups().map(([, g]) => render(g.Properties!.DeploymentConfigName)));
      expect(configs.size).toBe(1);
      const [config] = [...configs];
      const [[id, custom]] = resourcesOfType(template(), 'AWS::CodeDeploy::DeploymentConfig') as [[string, any]];
      expect(config).toBe(`\${${id}}`);
      expect(custom.Properties.ComputePlatform).toBe('Lambda');
      expect(custom.Properties.TrafficRoutingConfig).toEqual({
        Type: 'TimeBasedCanary',
        TimeBasedCanary: { CanaryPercentage: 10, CanaryInterval: stage === 'production' ? 10 : 5 },
      });
    });
  });

  test('a failed integration is 502 BAD_GATEWAY, a timed-out one 504 GATEWAY_TIMEOUT', () => {
    const response = (type: string) =>
      resourcesOfType(template(), 'AWS::ApiGateway::GatewayResponse').find(
        ([, r]) => r.Properties!.ResponseType === type,
      )![1].Properties!;
    expect(response('INTEGRATION_FAILURE').StatusCode).toBe('502');
    expect(response('INTEGRATION_FAILURE').ResponseTemplates['application/json']).toContain('"code":"BAD_GATEWAY"');
    expect(response('INTEGRATION_TIMEOUT').StatusCode).toBe('504');
    expect(response('INTEGRATION_TIMEOUT').ResponseTemplates['application/json']).toContain('"code":"GATEWAY_TIMEOUT"');
  });

  test('every resource answers any other method, and every other path below it, with a 404 and no authorizer', () => {
    const routes = routeMethods(template());
    const catchAll = catchAllMethods(template());
    const paths = (methods: { path: string }[]) => new Set(methods.map((m) => m.path));
    for (const method of catchAll) {
      expect(method.httpMethod, method.path).toBe('ANY');
      expect(method.properties.AuthorizationType, method.path).toBe('NONE');
      const [response] = method.properties.Integration.IntegrationResponses;
      expect(response.StatusCode).toBe('404');
      expect(response.SelectionPattern, 'the default response: every outcome').toBeUndefined();
      expect(JSON.parse(response.ResponseTemplates['application/json'].replace('$context.requestId', 'r'))).toEqual({
        code: 'NOT_FOUND',
        message: 'No such operation',
        status: 404,
        requestId: 'r',
      });
    }
    // ANY on the root, on /v1, on each route's resource; a greedy child where no variable child takes every name.
    expect([...paths(catchAll)].sort()).toEqual(
      ['', '/{proxy+}', '/v1', '/v1/{proxy+}', '/v1/pets', '/v1/pets/{petId}', '/v1/pets/{petId}/{proxy+}'].sort(),
    );
    for (const path of paths(routes)) expect(paths(catchAll), path).toContain(path);
  });

  test('CloudWatch may publish to the alarm topic, for this stack’s alarms only, and use its key', () => {
    const [[topicId]] = resourcesOfType(template(), 'AWS::SNS::Topic') as [[string, unknown]];
    const [[, policy]] = resourcesOfType(template(), 'AWS::SNS::TopicPolicy') as [[string, any]];
    const statement = (policy.Properties.PolicyDocument.Statement as any[]).find(
      (s) => s.Principal?.Service === 'cloudwatch.amazonaws.com',
    );
    const prefix = `${stackName(stage)}-`;
    expect(statement).toMatchObject({ Effect: 'Allow', Action: 'sns:Publish' });
    expect(render(statement.Resource)).toBe(`\${${topicId}}`);
    expect(render(statement.Condition.ArnLike['aws:SourceArn'])).toBe(
      `arn:aws:cloudwatch:eu-west-1:123456789012:alarm:${prefix}*`,
    );
    expect(statement.Condition.StringEquals['aws:SourceAccount']).toBe('123456789012');
    // The condition covers every alarm of the stack.
    const names = resourcesOfType(template(), 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties!.AlarmName);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(name.startsWith(prefix), name).toBe(true);
    // The key grant stays (CloudWatch encrypts what it publishes with the topic's key), under the
    // same confused-deputy guard: this account's alarms of this stack only.
    const [[, key]] = resourcesOfType(template(), 'AWS::KMS::Key') as [[string, any]];
    const grants = (key.Properties.KeyPolicy.Statement as any[]).filter(
      (s) => s.Principal?.Service === 'cloudwatch.amazonaws.com',
    );
    expect(grants).toHaveLength(1);
    expect(grants[0]).toMatchObject({ Effect: 'Allow', Action: ['kms:Decrypt', 'kms:GenerateDataKey*'] });
    expect(grants[0].Condition.StringEquals['aws:SourceAccount']).toBe('123456789012');
    expect(render(grants[0].Condition.ArnLike['aws:SourceArn'])).toBe(
      `arn:aws:cloudwatch:eu-west-1:123456789012:alarm:${prefix}*`,
    );
  });
});
