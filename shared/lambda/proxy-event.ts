// REST (v1) Lambda proxy events, built as API Gateway builds them. The local stage's
// gateway builds one per request; the in-process test harness and the pre-traffic checks
// (shared/release-checks) build the same events for a deployed stage, so all of them
// exercise the functions with one event shape.
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { type Route, resourcePath } from '../api/routes.ts';

/** The route a request matched, and its path parameters (infra/local/route-matcher.ts finds them locally). */
interface MatchedRoute {
  readonly route: Route;
  readonly pathParameters: Readonly<Record<string, string>>;
}

/** What the client sent, once the gateway has read it. */
export interface ClientRequest {
  /** Path below the stage and query string, as parsed from the request target. */
  readonly url: URL;
  /** Header pairs in the client's order and spelling (API Gateway keeps both). */
  readonly headers: Iterable<readonly [string, string]>;
  readonly body: string | null;
  readonly isBase64Encoded: boolean;
  readonly sourceIp: string;
  readonly protocol: string;
  readonly domainName: string;
}

/** Who API Gateway says the caller is: the authorizer's principalId and context. */
export interface CallerIdentity {
  readonly principalId: string;
  readonly context: Readonly<Record<string, string | number | boolean>>;
}

export interface EventContext {
  readonly accountId: string;
  readonly apiId: string;
  readonly stage: string;
  readonly requestId: string;
  readonly identity: CallerIdentity;
  /**
   * What precedes the path in the client's URL: `/staging` on a deployed stage's default
   * endpoint, nothing locally (there the stage is not a path segment).
   */
  readonly clientPathPrefix?: string;
}

/**
 * Values by name, as own properties whatever the name: a client's `?__proto__=x`
 * is a parameter like any other, as in the JSON event Lambda parses deployed
 * (`obj[name] ??= []` on a plain object reached Object.prototype instead: a 500).
 */
const groupByName = (pairs: Iterable<readonly [string, string]>): Record<string, string[]> => {
  const groups = new Map<string, string[]>();
  for (const [name, value] of pairs) {
    const values = groups.get(name);
    if (values) values.push(value);
    else groups.set(name, [value]);
  }
  return Object.fromEntries(groups);
};

const lastOfEach = (groups: Record<string, string[]>): Record<string, string> =>
  Object.fromEntries(Object.entries(groups).map(([name, values]) => [name, values.at(-1) as string]));

export const proxyEvent = (
  request: ClientRequest,
  { route, pathParameters }: MatchedRoute,
  context: EventContext,
): APIGatewayProxyEvent => {
  const multiValueHeaders = groupByName(request.headers);
  const multiValueQueryStringParameters = groupByName(request.url.searchParams);
  const hasQuery = Object.keys(multiValueQueryStringParameters).length > 0;
  const userAgent = Object.entries(multiValueHeaders).find(([name]) => name.toLowerCase() === 'user-agent')?.[1];
  const now = new Date();
  return {
    resource: resourcePath(route),
    path: request.url.pathname,
    httpMethod: route.method,
    headers: lastOfEach(multiValueHeaders),
    multiValueHeaders,
    queryStringParameters: hasQuery ? lastOfEach(multiValueQueryStringParameters) : null,
    multiValueQueryStringParameters: hasQuery ? multiValueQueryStringParameters : null,
    pathParameters: Object.keys(pathParameters).length ? pathParameters : null,
    stageVariables: null,
    body: request.body,
    isBase64Encoded: request.isBase64Encoded,
    requestContext: {
      accountId: context.accountId,
      apiId: context.apiId,
      authorizer: { principalId: context.identity.principalId, integrationLatency: 0, ...context.identity.context },
      domainName: request.domainName,
      domainPrefix: context.apiId,
      extendedRequestId: context.requestId,
      httpMethod: route.method,
      identity: {
        sourceIp: request.sourceIp,
        userAgent: userAgent?.at(-1) ?? null,
      } as APIGatewayProxyEvent['requestContext']['identity'],
      path: `${context.clientPathPrefix ?? ''}${request.url.pathname}`,
      protocol: request.protocol,
      requestId: context.requestId,
      requestTime: now.toUTCString(),
      requestTimeEpoch: now.getTime(),
      resourceId: route.operationId,
      resourcePath: resourcePath(route),
      stage: context.stage,
    },
  };
};
