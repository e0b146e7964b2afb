// Runs the real functions in this process, as Lambda would, with hand-built REST (v1)
// proxy events: the middleware chain, the error model and the repositories all run
// for real; only API Gateway is left out.
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayTokenAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { LOCAL_AWS_ENV } from '../../infra/local/embedded-dynamodb.ts';
import { matchRoute, resourcePath, type OperationId } from '../../shared/api/routes.ts';
import { tables } from '../../shared/dynamodb/tables.ts';

export const TEST_STAGE = 'staging';
export const TEST_CURSOR_SECRET = 'test-cursor-secret-0123456789abcdef';

/**
 * The functions' environment, pointed at `endpoint`. Table names default to the
 * definitions' names (what ensureTables creates). Must run before `loadFunctions`:
 * the Logger and Metrics read it at import, the repositories at first use, and both
 * are then kept for the life of the module (one endpoint per test file).
 */
export const setFunctionEnv = (endpoint: string, tableNames: Partial<Record<string, string>> = {}): void => {
  Object.assign(process.env, LOCAL_AWS_ENV, {
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    CURSOR_SECRET: TEST_CURSOR_SECRET,
    POWERTOOLS_SERVICE_NAME: 'petstore-test',
    POWERTOOLS_LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'SILENT',
    POWERTOOLS_METRICS_NAMESPACE: 'PetStore/test',
    POWERTOOLS_METRICS_DISABLED: 'true',
    ...Object.fromEntries(tables.map((table) => [table.envVar, tableNames[table.name] ?? table.name])),
  });
};

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
type AuthorizerHandler = (event: APIGatewayTokenAuthorizerEvent, context: Context) => Promise<APIGatewayAuthorizerResult>;

export interface Functions {
  invoke(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult>;
  authorize(event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult>;
}

/** Imports functions/*.ts (after setFunctionEnv) and routes each event to its route's function. */
export const loadFunctions = async (): Promise<Functions> => {
  const handlers: Record<OperationId, ProxyHandler> = {
    listPets: (await import('../../functions/list-pets.ts')).handler,
    createPet: (await import('../../functions/create-pet.ts')).handler,
    getPet: (await import('../../functions/get-pet.ts')).handler,
  };
  const authorizer: AuthorizerHandler = (await import('../../functions/authorizer.ts')).handler;
  return {
    invoke: (event) => {
      const match = matchRoute(event.httpMethod, event.path);
      if (!match) throw new Error(`no route for ${event.httpMethod} ${event.path}`);
      return handlers[match.route.operationId](event, lambdaContext(match.route.operationId));
    },
    authorize: (event) => authorizer(event, lambdaContext('authorizer')),
  };
};

export const lambdaContext = (name: string): Context => {
  const deadline = Date.now() + 10_000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `petstore-test-${name}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:petstore-test-${name}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/petstore-test-${name}`,
    logStreamName: 'test',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
};

export interface EventOptions {
  /** Path below the stage, with an optional query string: `/v1/pets?limit=5`. */
  path: string;
  method?: 'GET' | 'POST' | undefined;
  headers?: Record<string, string> | undefined;
  body?: string | null | undefined;
  isBase64Encoded?: boolean | undefined;
  requestId?: string | undefined;
  /** The key id the authorizer named the caller by. */
  principalId?: string | undefined;
}

/** A REST (v1) proxy event as API Gateway builds it for a deployed stage. */
export const proxyEvent = (options: EventOptions): APIGatewayProxyEvent => {
  const method = options.method ?? 'GET';
  const url = new URL(options.path, 'https://api.example.test');
  const match = matchRoute(method, url.pathname);
  if (!match) throw new Error(`no route for ${method} ${url.pathname}`);
  const multiValueQuery: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) (multiValueQuery[name] ??= []).push(value);
  const hasQuery = Object.keys(multiValueQuery).length > 0;
  const headers = options.headers ?? {};
  const requestId = options.requestId ?? randomUUID();
  const principalId = options.principalId ?? 'key_TestKey001';
  return {
    resource: resourcePath(match.route),
    path: url.pathname,
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: hasQuery
      ? Object.fromEntries(Object.entries(multiValueQuery).map(([name, values]) => [name, values.at(-1)!]))
      : null,
    multiValueQueryStringParameters: hasQuery ? multiValueQuery : null,
    pathParameters: Object.keys(match.pathParameters).length ? match.pathParameters : null,
    stageVariables: null,
    body: options.body ?? null,
    isBase64Encoded: options.isBase64Encoded ?? false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      authorizer: { principalId, integrationLatency: 0, keyId: principalId },
      domainName: 'abc123.execute-api.us-east-1.amazonaws.com',
      domainPrefix: 'abc123',
      extendedRequestId: requestId,
      httpMethod: method,
      identity: { sourceIp: '192.0.2.1', userAgent: 'vitest' } as APIGatewayProxyEvent['requestContext']['identity'],
      // Deployed, the client's path includes the stage.
      path: `/${TEST_STAGE}${url.pathname}`,
      protocol: 'HTTP/1.1',
      requestId,
      requestTime: new Date().toUTCString(),
      requestTimeEpoch: Date.now(),
      resourceId: match.route.operationId,
      resourcePath: resourcePath(match.route),
      stage: TEST_STAGE,
    },
  };
};

export const jsonPost = (body: string, headers: Record<string, string> = {}, requestId?: string): APIGatewayProxyEvent =>
  proxyEvent({ method: 'POST', path: '/v1/pets', body, headers: { 'Content-Type': 'application/json', ...headers }, requestId });

export const METHOD_ARN = `arn:aws:execute-api:us-east-1:123456789012:abc123/${TEST_STAGE}/GET/v1/pets`;

export const tokenEvent = (authorizationToken: string, methodArn = METHOD_ARN): APIGatewayTokenAuthorizerEvent => ({
  type: 'TOKEN',
  authorizationToken,
  methodArn,
});

/** The parsed JSON body of a proxy result. */
export const bodyOf = (result: APIGatewayProxyResult): any => JSON.parse(result.body);
