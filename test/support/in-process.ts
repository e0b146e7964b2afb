// Runs the real functions in this process, as Lambda would, with hand-built REST (v1)
// proxy events: the middleware chain, the error model and the repositories all run
// for real; only API Gateway is left out.

import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayTokenAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { functionEnvironment } from '../../infra/local/function-environment.ts';
import { lambdaContext as localLambdaContext } from '../../infra/local/lambda-runtime.ts';
import { matchRoute } from '../../infra/local/route-matcher.ts';
import { FUNCTION_TIMEOUT_SECONDS } from '../../infra/stages.ts';
import { AUTHORIZER_ENTRY, type OperationId, routes } from '../../shared/api/routes.ts';
import { proxyEvent as buildProxyEvent, type ClientRequest } from '../../shared/lambda/proxy-event.ts';

export const TEST_STAGE = 'staging';
export const TEST_CURSOR_SECRET = 'test-cursor-secret-0123456789abcdef';

/**
 * The functions' environment, pointed at `endpoint`. Table names default to the
 * definitions' names (what ensureTables creates). Must run before `loadFunctions`:
 * the Logger and Metrics read it at import, the repositories at first use, and both
 * are then kept for the life of the module (one endpoint per test file).
 */
export const setFunctionEnv = (endpoint: string, tableNames: Partial<Record<string, string>> = {}): void => {
  Object.assign(
    process.env,
    functionEnvironment({
      dynamodbEndpoint: endpoint,
      stage: TEST_STAGE,
      logLevel: process.env.TEST_LOG_LEVEL ?? 'SILENT',
      cursorSecret: TEST_CURSOR_SECRET,
      tableNames,
    }),
  );
};

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
type AuthorizerHandler = (
  event: APIGatewayTokenAuthorizerEvent,
  context: Context,
) => Promise<APIGatewayAuthorizerResult>;

export interface Functions {
  invoke(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult>;
  authorize(event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult>;
}

const REPOSITORY_ROOT = fileURLToPath(new URL('../../', import.meta.url));

const importHandler = async <H>(entry: string): Promise<H> =>
  ((await import(pathToFileURL(resolve(REPOSITORY_ROOT, entry)).href)) as { handler: H }).handler;

/** Imports the route table's functions (after setFunctionEnv) and routes each event to its route's function. */
export const loadFunctions = async (): Promise<Functions> => {
  const handlers = Object.fromEntries(
    await Promise.all(routes.map(async (r) => [r.operationId, await importHandler<ProxyHandler>(r.entry)] as const)),
  ) as Record<OperationId, ProxyHandler>;
  const authorizer = await importHandler<AuthorizerHandler>(AUTHORIZER_ENTRY);
  return {
    invoke: (event) => {
      const match = matchRoute(event.httpMethod, event.path);
      if (!match) throw new Error(`no route for ${event.httpMethod} ${event.path}`);
      return handlers[match.route.operationId](event, lambdaContext(match.route.operationId));
    },
    authorize: (event) => authorizer(event, lambdaContext('authorizer')),
  };
};

/** The context of a function of the test stage, with Lambda's 10 s ahead of it. */
export const lambdaContext = (name: string): Context =>
  localLambdaContext(`petstore-test-${name}`, Date.now() + FUNCTION_TIMEOUT_SECONDS * 1000);

export interface EventOptions {
  /** Path below the stage, with an optional query string: `/v1/pets?limit=5`. */
  path: string;
  method?: string | undefined;
  headers?: Record<string, string> | undefined;
  body?: string | null | undefined;
  isBase64Encoded?: boolean | undefined;
  requestId?: string | undefined;
  /** The key id the authorizer named the caller by. */
  principalId?: string | undefined;
}

/** A REST (v1) proxy event as API Gateway builds it for a deployed stage (the stage is in the client's path). */
export const proxyEvent = (options: EventOptions): APIGatewayProxyEvent => {
  const method = options.method ?? 'GET';
  const url = new URL(options.path, 'https://api.example.test');
  const match = matchRoute(method, url.pathname);
  if (!match) throw new Error(`no route for ${method} ${url.pathname}`);
  const principalId = options.principalId ?? 'key_TestKey001';
  const request: ClientRequest = {
    url,
    headers: Object.entries(options.headers ?? {}),
    body: options.body ?? null,
    isBase64Encoded: options.isBase64Encoded ?? false,
    sourceIp: '192.0.2.1',
    protocol: 'HTTP/1.1',
    domainName: 'abc123.execute-api.us-east-1.amazonaws.com',
  };
  return buildProxyEvent(request, match, {
    accountId: '123456789012',
    apiId: 'abc123',
    stage: TEST_STAGE,
    requestId: options.requestId ?? randomUUID(),
    identity: { principalId, context: { keyId: principalId } },
    clientPathPrefix: `/${TEST_STAGE}`,
  });
};

export const jsonPost = (
  body: string,
  headers: Record<string, string> = {},
  requestId?: string,
): APIGatewayProxyEvent =>
  proxyEvent({
    method: 'POST',
    path: '/v1/pets',
    body,
    headers: { 'Content-Type': 'application/json', ...headers },
    requestId,
  });

export const METHOD_ARN = `arn:aws:execute-api:us-east-1:123456789012:abc123/${TEST_STAGE}/GET/v1/pets`;

export const tokenEvent = (authorizationToken: string, methodArn = METHOD_ARN): APIGatewayTokenAuthorizerEvent => ({
  type: 'TOKEN',
  authorizationToken,
  methodArn,
});

/** The parsed JSON body of a proxy result. */
export const bodyOf = (result: APIGatewayProxyResult): any => JSON.parse(result.body);
