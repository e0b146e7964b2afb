// API Gateway: a regional REST API per stage, its routes from the route table behind the
// TOKEN authorizer, the stage's throttling, logging and tracing, and the BaseUrl output.
import { beforeAll, describe, expect, test } from 'vitest';
import { accessLogFields } from '../../infra/access-log.ts';
import { DEPLOYED_STAGES, STACK_OUTPUTS, stageSettings } from '../../infra/stages.ts';
import { routes } from '../../shared/api/routes.ts';
import { AUTHORIZATION_PATTERN } from '../../shared/domain/api-keys.ts';
import { type SynthesizedApp, synthesized } from './support/synth.ts';
import { render, resource, resourcesOfType, routeMethods } from './support/template.ts';

let app: SynthesizedApp;
beforeAll(async () => {
  app = await synthesized();
}, 300_000);

describe.each(DEPLOYED_STAGES)('stage %s', (stage) => {
  const settings = stageSettings[stage];
  const ids = () => app.index[stage];
  const template = () => app.template(stage);
  const stageProperties = () => resource(template(), ids().apiStage).Properties!;

  test('has one REGIONAL REST API', () => {
    const apis = resourcesOfType(template(), 'AWS::ApiGateway::RestApi');
    expect(apis.map(([id]) => id)).toEqual([ids().restApi]);
    expect(apis[0]![1].Properties!.EndpointConfiguration).toEqual({ Types: ['REGIONAL'] });
  });

  test('ships with the listing cache off: no cache cluster billed by the hour, no method cached', () => {
    // test/cdk/listing-cache.test.ts pins the cache turned on.
    expect(settings.listingCacheTtlSeconds).toBe(0);
    expect(stageProperties().CacheClusterEnabled).toBeUndefined();
    expect(JSON.stringify(stageProperties().MethodSettings)).not.toMatch(/Caching|CacheTtl/);
  });

  test('every key of the stage has the same limits (one usage plan): a cached listing may carry another key’s RateLimit-Policy', () => {
    // With listingCacheTtlSeconds > 0, API Gateway answers a cache hit with the first caller's
    // headers, RateLimit-Policy included (the cache key holds no Authorization). That is right
    // only while the limits are the stage's, the same for every key: a second plan (per-key
    // limits) must key the cache by key too, or leave it off.
    expect(resourcesOfType(template(), 'AWS::ApiGateway::UsagePlan')).toHaveLength(1);
  });

  test(`deploys to an API Gateway stage named ${stage}`, () => {
    expect(resourcesOfType(template(), 'AWS::ApiGateway::Stage')).toHaveLength(1);
    expect(stageProperties().StageName).toBe(stage);
  });

  test("has exactly the methods of the route table, each a Lambda proxy to its own function's live alias", () => {
    const methods = routeMethods(template());
    expect(methods.map((m) => `${m.httpMethod} ${m.path}`).sort()).toEqual(
      routes.map((r) => `${r.method} /v1${r.path}`).sort(),
    );
    for (const route of routes) {
      const method = methods.find((m) => m.httpMethod === route.method && m.path === `/v1${route.path}`)!;
      expect(method.properties.OperationName).toBe(route.operationId);
      expect(method.properties.Integration).toMatchObject({ Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' });
      expect(render(method.properties.Integration.Uri)).toMatch(
        new RegExp(`/functions/\\$\\{${ids().functions[route.operationId].alias}\\}/invocations$`),
      );
    }
  });

  test('every route method requires the TOKEN authorizer', () => {
    const [[authorizerId]] = resourcesOfType(template(), 'AWS::ApiGateway::Authorizer') as [[string, unknown]];
    for (const method of routeMethods(template())) {
      expect(method.properties.AuthorizationType, method.path).toBe('CUSTOM');
      expect(render(method.properties.AuthorizerId)).toBe(`\${${authorizerId}}`);
    }
  });

  test('the authorizer reads Authorization, checks AUTHORIZATION_PATTERN first, and caches its answer', () => {
    const authorizers = resourcesOfType(template(), 'AWS::ApiGateway::Authorizer');
    expect(authorizers).toHaveLength(1);
    const properties = authorizers[0]![1].Properties!;
    expect(properties).toMatchObject({
      Type: 'TOKEN',
      IdentitySource: 'method.request.header.Authorization',
      IdentityValidationExpression: AUTHORIZATION_PATTERN,
      AuthorizerResultTtlInSeconds: 300,
    });
    expect(render(properties.AuthorizerUri)).toContain(
      `/functions/\${${ids().functions.authorizer.alias}}/invocations`,
    );
  });

  test("throttles with the stage's rate and burst; logs errors and metrics, never data; traces with X-Ray", () => {
    expect(stageProperties().MethodSettings).toEqual([
      {
        HttpMethod: '*',
        ResourcePath: '/*',
        ThrottlingRateLimit: settings.throttling.rateLimit,
        ThrottlingBurstLimit: settings.throttling.burstLimit,
        LoggingLevel: 'ERROR',
        MetricsEnabled: true,
        DataTraceEnabled: false,
      },
    ]);
    expect(stageProperties().TracingEnabled).toBe(true);
  });

  test('writes a JSON access log line with exactly the fields of infra/access-log.ts, never a header', () => {
    const { Format, DestinationArn } = stageProperties().AccessLogSetting;
    // Each $context variable as API Gateway fills it: "-" when empty, a number for the numeric ones.
    const line = (filler: string) => JSON.parse(Format.replace(/\$context\.[\w.]+/g, filler));
    expect(Object.keys(line('0'))).toEqual(Object.keys(accessLogFields));
    expect(() => line('-')).toThrow(); // status and responseLatency are unquoted numbers…
    expect(line('0')).toMatchObject({ status: 0, responseLatency: 0, integrationLatency: '0' }); // …the rest strings
    const variables = Format.match(/\$context\.[\w.]+/g) ?? [];
    expect(variables).toEqual(Object.values(accessLogFields));
    for (const variable of variables) expect(variable.toLowerCase()).not.toContain('header');
    expect(render(DestinationArn)).toMatch(new RegExp(`:log-group:\\$\\{${ids().accessLogGroup}\\}$`));
  });

  test('logs what AWS lists for access logging that on-call asks: when, what was sent, what each party answered', () => {
    // Written from AWS's table, not from infra/access-log.ts:
    // https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-variables-for-access-logging.html
    const line = JSON.parse(stageProperties().AccessLogSetting.Format.replace(/\$context\.[\w.]+/g, '0'));
    const format: string = stageProperties().AccessLogSetting.Format;
    for (const variable of [
      '$context.requestTime', // CLF time of the request
      '$context.requestTimeEpoch',
      '$context.path', // the path as sent, stage included
      '$context.protocol',
      '$context.responseLength',
      '$context.identity.userAgent',
      '$context.authorizer.error', // the authorizer's error message
      '$context.authorizer.requestId', // the authorizer's Lambda request id: its line names the refused key
      '$context.integration.error',
      '$context.integrationErrorMessage',
    ])
      expect(format.match(/\$context\.[\w.]+/g), variable).toContain(variable);
    // The request's epoch time is a number, so Logs Insights compares and sorts it as one.
    expect(line.requestTimeEpoch).toBe(0);
    expect(format).toMatch(/"requestTimeEpoch":\$context\.requestTimeEpoch[,}]/);
  });

  test("keeps the access and execution logs for the stage's retention", () => {
    for (const id of [ids().accessLogGroup, ids().executionLogGroup]) {
      expect(resource(template(), id).Properties!.RetentionInDays).toBe(settings.logRetentionDays);
    }
    // The group API Gateway writes execution logs to, made before the stage so it is never made forever.
    expect(render(resource(template(), ids().executionLogGroup).Properties!.LogGroupName)).toBe(
      `API-Gateway-Execution-Logs_\${${ids().restApi}}/${stage}`,
    );
    expect(resource(template(), ids().apiStage).DependsOn).toContain(ids().executionLogGroup);
  });

  test("leaves the account's API Gateway CloudWatch role alone", () => {
    expect(resourcesOfType(template(), 'AWS::ApiGateway::Account')).toEqual([]);
    const roles = resourcesOfType(template(), 'AWS::IAM::Role').map(
      ([, role]) => role.Properties!.AssumeRolePolicyDocument,
    );
    expect(JSON.stringify(roles)).not.toContain('apigateway.amazonaws.com');
  });

  test('outputs the base URL of the stage, ending in /v1, and nothing but the documented outputs', () => {
    const { Outputs } = template();
    expect(Object.keys(Outputs).sort()).toEqual(Object.values(STACK_OUTPUTS).sort());
    expect(render(Outputs[STACK_OUTPUTS.baseUrl]!.Value)).toMatch(
      new RegExp(
        `^https://\\$\\{${ids().restApi}\\}\\.execute-api\\.eu-west-1\\.\\$\\{AWS::URLSuffix\\}/\\$\\{${ids().apiStage}\\}/v1$`,
      ),
    );
  });
});
