// The listing cache (listingCacheTtlSeconds): the REST API construct on its own, over imported
// functions (no bundling), with the setting off and on. Off, as both stages are today
// (test/cdk/api.test.ts pins the stacks themselves), there is no cache cluster and no caching.
//
// AWS's behaviour relied on:
// - https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-caching.html:
//   with a cache on the stage, "only GET methods have caching enabled by default" (getPet would
//   be cached too): caching is turned off for every method and on for the listing alone; the
//   TTL may be 0 to 3600 s; caching "is charged by the hour based on the cache size" (0.5 GB:
//   the smallest cacheClusterSize); the cache key comes from the method's parameters.
// - cacheKeyParameters "must also be specified for Method requestParameters"
//   (https://docs.aws.amazon.com/sdk-for-kotlin/api/latest/apigateway/aws.sdk.kotlin.services.apigateway.model/-integration/cache-key-parameters.html).
// - The authorizer runs on every method request ("When a client makes a request to your API's
//   method, API Gateway calls your Lambda authorizer":
//   https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-use-lambda-authorizer.html),
//   and the stage cache holds the integration's (endpoint's) answers, so a cache hit comes after
//   the authorizer and the key's usage plan; neither page says the order in so many words, so
//   the test below pins that the cached method keeps its authorizer and API key requirement.
//   Data encryption at rest: Security Hub's control APIGateway.5.
// - API Gateway caches the integration's answer whatever its status: there is no setting to
//   cache 2xx only (https://github.com/DianaIonita/serverless-api-gateway-caching/issues/125,
//   citing https://stackoverflow.com/questions/45883323): a 503 of the listing may be served
//   again for up to the TTL, which docs/api.md says.
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, test } from 'vitest';
import { Api, LISTING_CACHE_KEY_PARAMETERS } from '../../infra/constructs/api.ts';
import { type StageSettings, stageSettings } from '../../infra/stages.ts';
import { type OperationId, routes } from '../../shared/api/routes.ts';

const synth = (settings: StageSettings) => {
  const stack = new Stack(new App(), 'Probe', { env: { account: '123456789012', region: 'eu-west-1' } });
  const imported = (name: string) => ({
    function: LambdaFunction.fromFunctionArn(
      stack,
      `${name}Fn`,
      `arn:aws:lambda:eu-west-1:123456789012:function:petstore-${name}:live`,
    ),
  });
  new Api(stack, 'Api', {
    settings,
    functions: Object.fromEntries(routes.map((r) => [r.operationId, imported(r.operationId)])) as Record<
      OperationId,
      { function: LambdaFunction }
    >,
    authorizer: imported('authorizer').function,
  });
  return Template.fromStack(stack).toJSON() as {
    Resources: Record<string, { Type: string; Properties: Record<string, any> }>;
  };
};
const ofType = (template: ReturnType<typeof synth>, type: string) =>
  Object.values(template.Resources).filter((r) => r.Type === type);
/** Each method by `METHOD path` (resource ids resolved to their PathPart chain). */
const methods = (template: ReturnType<typeof synth>) => {
  const pathOf = (ref: any): string => {
    if (ref?.['Fn::GetAtt']) return '';
    const resource = template.Resources[ref.Ref]!;
    return `${pathOf(resource.Properties.ParentId)}/${resource.Properties.PathPart}`;
  };
  return Object.fromEntries(
    ofType(template, 'AWS::ApiGateway::Method').map((m) => [
      `${m.Properties.HttpMethod} ${pathOf(m.Properties.ResourceId)}`,
      m.Properties,
    ]),
  );
};

describe.each(['staging', 'production'] as const)('%s', (stage) => {
  test('off (0): no cache cluster, no method caching, no cache key', () => {
    const template = synth({ ...stageSettings[stage], listingCacheTtlSeconds: 0 });
    const [stageResource] = ofType(template, 'AWS::ApiGateway::Stage');
    expect(stageResource!.Properties.CacheClusterEnabled).toBeUndefined();
    expect(stageResource!.Properties.CacheClusterSize).toBeUndefined();
    expect(JSON.stringify(stageResource!.Properties.MethodSettings)).not.toMatch(/Caching|CacheTtl/);
    for (const method of Object.values(methods(template))) {
      expect(method.Integration?.CacheKeyParameters).toBeUndefined();
      expect(method.RequestParameters).toBeUndefined();
    }
  });

  test('on: a 0.5 GB cluster, caching on for GET /v1/pets only, with its TTL and the query as the key', () => {
    const template = synth({ ...stageSettings[stage], listingCacheTtlSeconds: 2 });
    const [stageResource] = ofType(template, 'AWS::ApiGateway::Stage');
    expect(stageResource!.Properties).toMatchObject({ CacheClusterEnabled: true, CacheClusterSize: '0.5' });
    const settings = stageResource!.Properties.MethodSettings as Array<Record<string, unknown>>;
    // Every method (API Gateway would cache every GET by default), then the listing's override.
    expect(settings.find((s) => s.ResourcePath === '/*' && s.HttpMethod === '*')).toMatchObject({
      CachingEnabled: false,
    });
    const cachedOnes = settings.filter((s) => s.CachingEnabled === true);
    // An override replaces the method's settings: the stage's throttling, logging and metrics again.
    expect(cachedOnes).toEqual([
      {
        ResourcePath: '/~1v1~1pets',
        HttpMethod: 'GET',
        CachingEnabled: true,
        CacheTtlInSeconds: 2,
        CacheDataEncrypted: true,
        ThrottlingRateLimit: stageSettings[stage].throttling.rateLimit,
        ThrottlingBurstLimit: stageSettings[stage].throttling.burstLimit,
        LoggingLevel: 'ERROR',
        MetricsEnabled: true,
        DataTraceEnabled: false,
      },
    ]);
    const byRoute = methods(template);
    expect(byRoute['GET /v1/pets']!.Integration.CacheKeyParameters).toEqual([...LISTING_CACHE_KEY_PARAMETERS]);
    expect(byRoute['GET /v1/pets']!.RequestParameters).toEqual({
      'method.request.querystring.limit': false,
      'method.request.querystring.status': false,
      'method.request.querystring.cursor': false,
    });
    // Still behind the authorizer and the key's usage plan: a cache hit is no way around them.
    expect(byRoute['GET /v1/pets']).toMatchObject({ AuthorizationType: 'CUSTOM', ApiKeyRequired: true });
    for (const [name, method] of Object.entries(byRoute)) {
      if (name === 'GET /v1/pets') continue;
      expect(method.Integration?.CacheKeyParameters, name).toBeUndefined();
    }
  });

  test('a TTL beyond API Gateway’s 3600 s is refused at synth', () => {
    expect(() => synth({ ...stageSettings[stage], listingCacheTtlSeconds: 3601 })).toThrow(/listingCacheTtlSeconds/);
  });
});
