// The events the handler benchmarks send: REST (v1) proxy events shaped as a regional
// API Gateway stage delivers them (its usual headers, the authorizer's principalId),
// and a TOKEN authorizer event.

import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { type OperationId, resourcePath, route } from '../../shared/api/routes.ts';

const STAGE = 'staging';
const METHOD_ARN_PREFIX = 'arn:aws:execute-api:us-east-1:000000000000:bench';

interface Request {
  path: string;
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  body?: string;
}

export const proxyEvent = (operationId: OperationId, keyId: string, request: Request): APIGatewayProxyEvent => {
  const { method } = route(operationId);
  const headers: Record<string, string> = {
    Accept: '*/*',
    Authorization: 'Bearer (not read by the function)',
    Host: 'bench.execute-api.us-east-1.amazonaws.com',
    'User-Agent': 'curl/8.5.0',
    'X-Amzn-Trace-Id': 'Root=1-67891233-abcdef012345678912345678',
    'X-Forwarded-For': '203.0.113.7',
    'X-Forwarded-Port': '443',
    'X-Forwarded-Proto': 'https',
    ...(request.body !== undefined && {
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(request.body)),
    }),
  };
  const query = request.query ?? {};
  const hasQuery = Object.keys(query).length > 0;
  const requestId = randomUUID();
  return {
    resource: resourcePath(route(operationId)),
    path: `/v1${request.path}`,
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery
      ? Object.fromEntries(Object.entries(query).map(([name, value]) => [name, [value]]))
      : null,
    pathParameters: request.pathParameters ?? null,
    stageVariables: null,
    body: request.body ?? null,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'bench',
      authorizer: { principalId: keyId, integrationLatency: 3 },
      domainName: headers.Host!,
      domainPrefix: 'bench',
      extendedRequestId: 'AbCdEfGhIjKlMnO=',
      httpMethod: method,
      identity: {
        sourceIp: '203.0.113.7',
        userAgent: headers['User-Agent']!,
      } as APIGatewayProxyEvent['requestContext']['identity'],
      path: `/${STAGE}/v1${request.path}`,
      protocol: 'HTTP/1.1',
      requestId,
      requestTime: new Date().toUTCString(),
      requestTimeEpoch: Date.now(),
      resourceId: 'abc123',
      resourcePath: resourcePath(route(operationId)),
      stage: STAGE,
    },
  };
};

export const tokenEvent = (key: string, operationId: OperationId = 'listPets'): APIGatewayTokenAuthorizerEvent => ({
  type: 'TOKEN',
  authorizationToken: `Bearer ${key}`,
  methodArn: `${METHOD_ARN_PREFIX}/${STAGE}/${route(operationId).method}${resourcePath(route(operationId))}`,
});
