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

/** Each name's values in order, and its last one (API Gateway's single-value map). */
interface Grouped {
  readonly last: Record<string, string>;
  readonly all: Record<string, string[]>;
  readonly size: number;
}

/** `object[name] = value` as an own property whatever the name: `__proto__` would set the prototype. */
const put = <T>(object: Record<string, T>, name: string, value: T): void => {
  if (name === '__proto__')
    Object.defineProperty(object, name, { value, writable: true, enumerable: true, configurable: true });
  else object[name] = value;
};

/**
 * Values by name, as own properties whatever the name: a client's `?__proto__=x` is a parameter
 * like any other, as in the JSON event Lambda parses deployed (`obj[name] ??= []` on a plain
 * object reached Object.prototype instead: a 500). One pass builds both maps (a request's
 * headers: per request, on the local stage).
 */
const groupByName = (pairs: Iterable<readonly [string, string]>): Grouped => {
  const last: Record<string, string> = {};
  const all: Record<string, string[]> = {};
  let size = 0;
  for (const [name, value] of pairs) {
    if (Object.hasOwn(all, name)) all[name]!.push(value);
    else {
      put(all, name, [value]);
      size++;
    }
    put(last, name, value);
  }
  return { last, all, size };
};

/** The last value of the first header of that name in any spelling (names differing in case are apart). */
const lastValueOf = ({ all }: Grouped, lowerCaseName: string): string | undefined => {
  for (const name of Object.keys(all)) if (name.toLowerCase() === lowerCaseName) return all[name]!.at(-1);
  return undefined;
};

export const proxyEvent = (
  request: ClientRequest,
  { route, pathParameters }: MatchedRoute,
  context: EventContext,
): APIGatewayProxyEvent => {
  const headers = groupByName(request.headers);
  const query = groupByName(request.url.searchParams);
  const hasQuery = query.size > 0;
  const resource = resourcePath(route);
  const now = new Date();
  return {
    resource,
    path: request.url.pathname,
    httpMethod: route.method,
    headers: headers.last,
    multiValueHeaders: headers.all,
    queryStringParameters: hasQuery ? query.last : null,
    multiValueQueryStringParameters: hasQuery ? query.all : null,
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
        userAgent: lastValueOf(headers, 'user-agent') ?? null,
      } as APIGatewayProxyEvent['requestContext']['identity'],
      path: `${context.clientPathPrefix ?? ''}${request.url.pathname}`,
      protocol: request.protocol,
      requestId: context.requestId,
      requestTime: now.toUTCString(),
      requestTimeEpoch: now.getTime(),
      resourceId: route.operationId,
      resourcePath: resource,
      stage: context.stage,
    },
  };
};
