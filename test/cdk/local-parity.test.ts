// The local server (`npm start`) and the synthesized API must be the same API: the
// same routes, the same authorizer (header and identity validation), the same error
// bodies from the gateway and the same limits per key (usage plan). Checked against the
// staging template; production's API is built by the same code (api.test.ts checks both).
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runningDynamoDB } from '../../infra/local/embedded-dynamodb.ts';
import { localClientConfig } from '../../infra/local/function-environment.ts';
import { type GatewayResponseType, gatewayErrorBody, gatewayResponses } from '../../shared/api/gateway-responses.ts';
import { BINARY_MEDIA_TYPES, isBinaryMediaType } from '../../shared/api/routes.ts';
import { generateKey, hashKey } from '../../shared/domain/api-keys.ts';
import { keysTable } from '../../shared/dynamodb/tables.ts';
import { disposeServer, type LocalServer, startLocalServer } from '../../tools/harness/local-server.ts';
import { issueKey } from '../e2e/support.ts';
import { type CfnTemplate, type SynthesizedApp, synthesized } from './support/synth.ts';
import { catchAllMethods, resourcesOfType, routeMethods } from './support/template.ts';

let app: SynthesizedApp;
let server: LocalServer;
let template: CfnTemplate;
beforeAll(async () => {
  [app, server] = await Promise.all([synthesized(), startLocalServer()]);
  template = app.template('staging');
}, 300_000);
afterAll(async () => {
  await disposeServer(server);
});

/** What API Gateway sends for a gateway response of `type`: status, headers and the rendered template. */
const synthesizedResponse = (type: GatewayResponseType, requestId: string, messageString: string) => {
  const found = resourcesOfType(template, 'AWS::ApiGateway::GatewayResponse').filter(
    ([, r]) => r.Properties!.ResponseType === type,
  );
  expect(found, type).toHaveLength(1);
  const { StatusCode, ResponseParameters, ResponseTemplates } = found[0]![1].Properties!;
  const body = (ResponseTemplates['application/json'] as string)
    .replaceAll('$context.requestId', requestId)
    // API Gateway substitutes messageString already quoted.
    .replaceAll('$context.error.messageString', JSON.stringify(messageString));
  expect(body, 'no other variable is left to render').not.toContain('$');
  const headers = Object.fromEntries(
    Object.entries(ResponseParameters as Record<string, string>).map(([name, value]) => {
      const header = name.replace(/^gatewayresponse\.header\./, '');
      // Literals only: AWS maps a gateway response's headers from literals or the request's own
      // parameters (responseParameters), never from the authorizer's context.
      expect(value, 'a header value is a quoted literal').toMatch(/^'[^']*'$/);
      return [header, value.slice(1, -1)];
    }),
  );
  return { status: Number(StatusCode), headers, body: JSON.parse(body) as unknown };
};

const call = async (method: string, path: string, authorization?: string) => {
  const response = await fetch(`${server.baseUrl.replace(/\/v1$/, '')}${path}`, {
    method,
    headers: authorization === undefined ? {} : { Authorization: authorization },
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
};

describe('gateway responses', () => {
  test.each(Object.keys(gatewayResponses) as GatewayResponseType[])(
    '%s: the synthesized template renders the body, status and headers the local server sends',
    (type) => {
      const rendered = synthesizedResponse(type, 'c0ffee-request', 'Gateway says no');
      expect(rendered.body).toEqual(gatewayErrorBody(type, 'c0ffee-request', 'Gateway says no'));
      expect(rendered.status).toBe(gatewayResponses[type].status);
      expect(rendered.headers).toEqual({ 'Content-Type': 'application/json', ...gatewayResponses[type].headers });
    },
  );

  test("an unknown route with a key: the local 404 is the body of the template's catch-all (not-found.ts)", async () => {
    const reply = await call('DELETE', '/v1/pets/1/owner', `Bearer ${server.key}`);
    const requestId = reply.headers.get('x-amzn-requestid')!;
    const catchAll = catchAllMethods(template);
    expect(catchAll.length).toBeGreaterThan(0);
    for (const { path, properties } of catchAll) {
      const [response] = properties.Integration.IntegrationResponses as Record<string, any>[];
      const body = (response!.ResponseTemplates['application/json'] as string).replaceAll(
        '$context.requestId',
        requestId,
      );
      expect(reply.status, path).toBe(Number(response!.StatusCode));
      expect(reply.body, path).toEqual(JSON.parse(body));
      expect(response!.ResponseParameters['method.response.header.Content-Type']).toBe("'application/json'");
    }
  });

  test('an unknown route: both answer 404 with the MISSING_AUTHENTICATION_TOKEN response', async () => {
    const reply = await call('GET', '/v1/animals', 'Bearer nothing');
    const requestId = reply.headers.get('x-amzn-requestid')!;
    const expected = synthesizedResponse('MISSING_AUTHENTICATION_TOKEN', requestId, 'Missing Authentication Token');
    expect(reply.status).toBe(expected.status);
    expect(reply.body).toEqual(expected.body);
  });

  test('no key: both answer 401 with the UNAUTHORIZED response and its WWW-Authenticate header', async () => {
    const reply = await call('GET', '/v1/pets');
    const expected = synthesizedResponse('UNAUTHORIZED', reply.headers.get('x-amzn-requestid')!, 'Unauthorized');
    expect(reply.status).toBe(expected.status);
    expect(reply.body).toEqual(expected.body);
    expect(reply.headers.get('www-authenticate')).toBe(expected.headers['WWW-Authenticate']);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  });
});

describe('routes', () => {
  test('every synthesized route method exists locally: it asks for a key instead of answering 404', async () => {
    const methods = routeMethods(template);
    expect(methods.length).toBeGreaterThan(0);
    for (const { httpMethod, path } of methods) {
      const reply = await call(httpMethod, path.replace(/\{\w+\}/g, '1'));
      expect(reply.status, `${httpMethod} ${path}`).toBe(401);
    }
  });

  test('a method the route table lacks is 404 locally too', async () => {
    const synthesized = new Set(routeMethods(template).map((m) => `${m.httpMethod} ${m.path}`));
    const candidates = [
      'DELETE /v1/pets',
      'PUT /v1/pets/{petId}',
      'POST /v1/pets/{petId}',
      'GET /v1',
      'GET /v1/pets/{petId}/owner',
      'GET /pets',
    ];
    for (const candidate of candidates.filter((c) => !synthesized.has(c))) {
      const [method, path] = candidate.split(' ') as [string, string];
      const reply = await call(method, path.replace(/\{\w+\}/g, '1'), `Bearer ${server.key}`);
      expect(reply.status, candidate).toBe(404);
    }
  });
});

describe('authorizer', () => {
  const authorizer = () => {
    const authorizers = resourcesOfType(template, 'AWS::ApiGateway::Authorizer');
    expect(authorizers).toHaveLength(1);
    return authorizers[0]![1].Properties as Record<string, string>;
  };

  test('both read the key from the Authorization header', async () => {
    expect(authorizer().IdentitySource).toBe('method.request.header.Authorization');
    expect((await call('GET', '/v1/pets', `Bearer ${server.key}`)).status).toBe(200);
  });

  test("the template's identity validation expression decides which Authorization values the local server lets through", async () => {
    const expression = new RegExp(authorizer().IdentityValidationExpression!);
    const key = server.key;
    // What reaches a server (fetch, like any HTTP stack, trims the value's ends).
    const values = [
      `Bearer ${key}`,
      `bearer ${key}`,
      `BEARER   ${key}`,
      `Bearer\t${key}`,
      `Basic ${key}`,
      `Bearer ${key} ${key}`,
      `Bearer`,
      `Bearer:${key}`,
      key,
      `Bearer pet_short`,
    ];
    for (const value of values) {
      const reply = await call('GET', '/v1/pets', value);
      expect(reply.status === 200, JSON.stringify(value.replace(key, '<key>'))).toBe(expression.test(value));
    }
  });
});

describe('bodies', () => {
  test("the API's binary media types are those the local gateway hands the functions as bytes", () => {
    const restApis = resourcesOfType(template, 'AWS::ApiGateway::RestApi');
    expect(restApis).toHaveLength(1);
    expect(restApis[0]![1].Properties!.BinaryMediaTypes).toEqual(BINARY_MEDIA_TYPES);
    for (const type of ['application/json', 'application/json; charset=utf-8', 'text/plain'])
      expect(isBinaryMediaType(type)).toBe(true);
  });
});

describe('limits per key (the usage plan)', () => {
  const plan = () => {
    const plans = resourcesOfType(template, 'AWS::ApiGateway::UsagePlan');
    expect(plans).toHaveLength(1);
    return plans[0]![1].Properties!;
  };
  let planned: LocalServer;
  let quota: LocalServer;
  beforeAll(async () => {
    // The local stage with the template's limits per key, and one with a quota small enough to use up.
    const { RateLimit, BurstLimit } = plan().Throttle as { RateLimit: number; BurstLimit: number };
    [planned, quota] = await Promise.all([
      // The authorizer's answers cached, as deployed: a burst reaches the limiter together.
      startLocalServer({
        PETSTORE_KEY_RATE: String(RateLimit),
        PETSTORE_KEY_BURST: String(BurstLimit),
        PETSTORE_AUTHORIZER_CACHE_TTL: '300',
      }),
      startLocalServer({ PETSTORE_KEY_QUOTA: '1' }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([disposeServer(planned), disposeServer(quota)]);
  });

  test('every method needs an API key, which the authorizer names: both refuse a key without one', async () => {
    expect(resourcesOfType(template, 'AWS::ApiGateway::RestApi')[0]![1].Properties!.ApiKeySourceType).toBe(
      'AUTHORIZER',
    );
    for (const method of routeMethods(template)) expect(method.properties.ApiKeyRequired, method.path).toBe(true);
    // The catch-all 404s answer whatever the caller sends: no API key asked of them.
    for (const method of catchAllMethods(template)) expect(method.properties.ApiKeyRequired, method.path).toBeFalsy();
    // A key stored without a usage identifier, as keys were before usage plans.
    const key = generateKey();
    const client = DynamoDBDocumentClient.from(new DynamoDBClient(localClientConfig(runningDynamoDB(server.dataDir)!)));
    await client.send(
      new PutCommand({
        TableName: keysTable.name,
        Item: { keyHash: hashKey(key), keyId: 'key_NoUsageKey', label: 'parity', createdAt: new Date().toISOString() },
      }),
    );
    client.destroy();
    const reply = await call('GET', '/v1/pets', `Bearer ${key}`);
    const expected = synthesizedResponse('INVALID_API_KEY', reply.headers.get('x-amzn-requestid')!, 'Forbidden');
    expect(reply.status).toBe(expected.status);
    expect(reply.body).toEqual(expected.body);
  });

  test("the template's per-key burst: past it a key gets the THROTTLED response, while another key is served", async () => {
    const { BurstLimit } = plan().Throttle as { BurstLimit: number };
    const other = await issueKey(planned.dataDir, 'parity');
    const get = (key: string) =>
      fetch(`${planned.baseUrl}/pets?limit=1`, { headers: { Authorization: `Bearer ${key}` } });
    await Promise.all([get(planned.key), get(other.key)]); // fills the authorizer cache
    const [noisy, quiet] = await Promise.all([
      Promise.all(Array.from({ length: BurstLimit * 2 }, () => get(planned.key))),
      get(other.key),
    ]);
    expect(quiet.status).toBe(200);
    const throttled = noisy.filter((reply) => reply.status === 429);
    expect(throttled.length).toBeGreaterThan(0);
    expect(noisy.length - throttled.length).toBeGreaterThanOrEqual(BurstLimit - 1);
    const reply = throttled[0]!;
    const expected = synthesizedResponse('THROTTLED', reply.headers.get('x-amzn-requestid')!, 'Too Many Requests');
    expect(await reply.json()).toEqual(expected.body);
    expect(reply.headers.get('retry-after')).toBe(expected.headers['Retry-After']);
    // A gateway response's headers cannot come from the authorizer's context: no RateLimit-Policy.
    expect(reply.headers.get('ratelimit-policy')).toBeNull();
  });

  test('a used-up daily quota: the QUOTA_EXCEEDED response', async () => {
    const get = () => fetch(`${quota.baseUrl}/pets?limit=1`, { headers: { Authorization: `Bearer ${quota.key}` } });
    expect((await get()).status).toBe(200);
    const reply = await get();
    const expected = synthesizedResponse('QUOTA_EXCEEDED', reply.headers.get('x-amzn-requestid')!, 'Limit Exceeded');
    expect(reply.status).toBe(expected.status);
    expect(await reply.json()).toEqual(expected.body);
    expect(reply.headers.get('retry-after')).toBe(expected.headers['Retry-After']);
    expect(reply.headers.get('ratelimit-policy')).toBeNull();
  });
});
