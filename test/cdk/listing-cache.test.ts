// The listing cache (listingCacheTtlSeconds): the REST API construct on its own, over imported
// functions (no bundling). A stage cache is refused: API Gateway cannot key it on what the
// listing answers by, so one request with a repeated parameter would poison the cached answer of
// the same listing without it. AWS's behaviour relied on:
// - A parameter given twice is one value to the gateway: "If the same key-value pair is specified
//   multiple times, only the last value" goes into queryStringParameters, the multi-value ones
//   into multiValueQueryStringParameters
//   (https://docs.aws.amazon.com/apigateway/latest/developerguide/set-up-lambda-proxy-integrations.html).
//   The cache key comes from the method's parameters, "method.request.querystring.<name>"
//   (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-caching.html), and
//   cacheKeyParameters "must also be specified for Method requestParameters"
//   (https://docs.aws.amazon.com/sdk-for-kotlin/api/latest/apigateway/aws.sdk.kotlin.services.apigateway.model/-integration/cache-key-parameters.html).
// - A multi-value query string is no cache key: API Gateway refuses
//   "method.request.multivaluequerystring.<name>" there with "Invalid mapping expression specified"
//   (https://github.com/DianaIonita/serverless-api-gateway-caching/issues/70).
// - The cache keeps the integration's answer whatever its status: there is no setting to cache
//   2xx only (https://github.com/DianaIonita/serverless-api-gateway-caching/issues/125, citing
//   https://stackoverflow.com/questions/45883323, a 429 served from the cache).
// So `?limit=5&limit=5` (400: "given twice", docs/api.md) and `?limit=5` share one cache entry.
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, test } from 'vitest';
import { Api } from '../../infra/constructs/api.ts';
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

  test.each([1, 2, 3600])('a TTL of %i s is refused at synth, saying why', (ttl) => {
    expect(() => synth({ ...stageSettings[stage], listingCacheTtlSeconds: ttl })).toThrow(
      /listingCacheTtlSeconds must be 0.*repeated query parameter by its last value and keeps 400s/,
    );
  });
});
