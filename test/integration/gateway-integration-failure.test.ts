// The local gateway, as API Gateway: a function that crashes, or answers something that is not
// a proxy response, is INTEGRATION_FAILURE, which the contract answers 502 BAD_GATEWAY (not a
// 504: a crash must never read as a timeout). The route functions here are the faults
// themselves; the gateway, its error bodies and its access log are the real ones.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { AccessLogLine } from '../../infra/access-log.ts';
import { createAuthorizerCache } from '../../infra/local/authorizer-cache.ts';
import { createGateway } from '../../infra/local/gateway.ts';
import { type OperationId, routes } from '../../shared/api/routes.ts';
import { generateKey } from '../../shared/domain/api-keys.ts';
import { sampleHttpRequest, sampleRequests } from '../../tools/harness/sample-requests.ts';

const accessLog: AccessLogLine[] = [];
let server: Server;
let base: string;

/** The faults every route's function is made of, in turn. */
const FAULTS = {
  'a function that crashes': async () => Promise.reject(new Error('Runtime.ExitError')),
  'a function whose answer is not a proxy response': async () => ({ body: 'no status code' }) as never,
};
let fault: keyof typeof FAULTS = 'a function that crashes';

beforeAll(async () => {
  const listener = createGateway({
    stage: 'local',
    functions: Object.fromEntries(
      routes.map(({ operationId }) => [operationId, { name: operationId, invoke: () => FAULTS[fault]() }]),
    ) as Record<OperationId, { name: string; invoke: () => Promise<never> }>,
    authorizer: {
      name: 'allows',
      invoke: async ({ methodArn }) => ({
        principalId: 'key_Test',
        // Every method requires an API key (limits per key): the authorizer names it.
        usageIdentifierKey: 'usageKeyOfKeyTest',
        policyDocument: {
          Version: '2012-10-17',
          Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: methodArn }],
        },
      }),
    },
    authorizerCache: createAuthorizerCache(0),
    throttle: { rate: 1000, burst: 1000 },
    accessLog: (line) => accessLog.push(line),
  });
  server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const cases = (Object.keys(FAULTS) as (keyof typeof FAULTS)[]).flatMap((name) =>
  routes.map(({ operationId }) => [name, operationId] as const),
);

test.each(cases)(
  '%s (%s): 502 BAD_GATEWAY with the Error body, INTEGRATION_FAILURE in the access log',
  async (name, operationId) => {
    fault = name;
    // The operation's valid sample (tools/harness/sample-requests.ts): only its function's fault is wrong.
    const { method, path, headers, body } = sampleHttpRequest(operationId, sampleRequests[operationId].valid);
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { ...headers, Authorization: `Bearer ${generateKey()}` },
      body: body ?? null,
    });
    const requestId = response.headers.get('x-amzn-requestid');
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({
      code: 'BAD_GATEWAY',
      message: expect.stringContaining('requestId'),
      status: 502,
      requestId,
    });
    expect(accessLog.find((line) => line.requestId === requestId)?.errorResponseType).toBe('INTEGRATION_FAILURE');
  },
);
