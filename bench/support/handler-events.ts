// The events the handler benchmarks send: each operation's valid sample request (the harness's
// table, tools/harness/sample-requests.ts) as the REST (v1) proxy event API Gateway builds
// (shared/lambda/proxy-event.ts, the local gateway's own builder), with a regional stage's usual
// headers and the authorizer's principalId; and a TOKEN authorizer event.
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { type OperationId, resourcePath, route } from '../../shared/api/routes.ts';
import { proxyEvent as buildProxyEvent } from '../../shared/lambda/proxy-event.ts';
import { type SampleRequest, sampleHttpRequest, sampleRequests } from '../../tools/harness/sample-requests.ts';

const STAGE = 'staging';
const DOMAIN = 'bench.execute-api.us-east-1.amazonaws.com';

/** `operationId`'s valid sample, with what the bench sets apart (a seeded id, a page size). */
export const proxyEvent = (
  operationId: OperationId,
  keyId: string,
  overrides: SampleRequest = {},
): APIGatewayProxyEvent => {
  const sample = { ...sampleRequests[operationId].valid, ...overrides };
  const spec = sampleHttpRequest(operationId, sample, {
    versioned: true,
    headers: {
      Accept: '*/*',
      Authorization: 'Bearer (not read by the function)',
      Host: DOMAIN,
      'User-Agent': 'curl/8.5.0',
      'X-Amzn-Trace-Id': 'Root=1-67891233-abcdef012345678912345678',
      'X-Forwarded-For': '203.0.113.7',
      'X-Forwarded-Port': '443',
      'X-Forwarded-Proto': 'https',
    },
  });
  const body = typeof spec.body === 'string' ? spec.body : null;
  const headers = { ...spec.headers, ...(body !== null && { 'Content-Length': String(Buffer.byteLength(body)) }) };
  return buildProxyEvent(
    {
      url: new URL(spec.path, `https://${DOMAIN}`),
      headers: Object.entries(headers),
      body,
      isBase64Encoded: false,
      sourceIp: '203.0.113.7',
      protocol: 'HTTP/1.1',
      domainName: DOMAIN,
    },
    { route: route(operationId), pathParameters: { ...sample.pathParameters } },
    {
      accountId: '000000000000',
      apiId: 'bench',
      stage: STAGE,
      requestId: randomUUID(),
      identity: { principalId: keyId, context: { keyId } },
      clientPathPrefix: `/${STAGE}`,
    },
  );
};

export const tokenEvent = (key: string, operationId: OperationId = 'listPets'): APIGatewayTokenAuthorizerEvent => ({
  type: 'TOKEN',
  authorizationToken: `Bearer ${key}`,
  methodArn: `arn:aws:execute-api:us-east-1:000000000000:bench/${STAGE}/${route(operationId).method}${resourcePath(route(operationId))}`,
});
