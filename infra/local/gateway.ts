// One API Gateway REST stage, emulated: the route table's resources, the TOKEN
// authorizer with its identity validation and cache, Lambda proxy events and
// results, the gateway responses of shared/api/gateway-responses.ts, and an access log.

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayTokenAuthorizerEvent,
} from 'aws-lambda';
import { isBinaryMediaType, type OperationId, resourcePath } from '../../shared/api/routes.ts';
import { AUTHORIZATION_PATTERN } from '../../shared/domain/api-keys.ts';
import { type CallerIdentity, type ClientRequest, proxyEvent } from '../../shared/lambda/proxy-event.ts';
import type { AccessLogLine } from '../access-log.ts';
import type { KeyLimits } from '../stages.ts';
import { accessLogLine } from './access-log-line.ts';
import type { AuthorizerCache } from './authorizer-cache.ts';
import { allows } from './authorizer-policy.ts';
import { ConcurrencyLimitExceeded } from './concurrency.ts';
import { serveDocsPage } from './docs-page.ts';
import { gatewayErrorResult, writeResult } from './gateway-answers.ts';
import { GatewayError, refuseLateBody } from './gateway-error.ts';
import { createKeyLimiter, KEY_REFUSAL_MESSAGES } from './key-limits.ts';
import type { LocalFunction } from './lambda-runtime.ts';
import { createListingCache } from './listing-cache.ts';
import {
  type BodyReaderOptions,
  createBodyReader,
  declaresMoreThanPayloadLimit,
  hasUnknownExpectation,
  RequestAbandoned,
} from './request-body.ts';
import { matchRoute, originForm } from './route-matcher.ts';
import { createThrottle } from './throttle.ts';

const ACCOUNT = '000000000000';
const API_ID = 'local';
const authorizationFormat = new RegExp(AUTHORIZATION_PATTERN);

export interface GatewayOptions {
  stage: string;
  functions: Record<OperationId, LocalFunction<APIGatewayProxyEvent, APIGatewayProxyResult>>;
  authorizer: LocalFunction<APIGatewayTokenAuthorizerEvent, APIGatewayAuthorizerResult>;
  /** Its answers per token; the stage flushes it when a key is revoked. */
  authorizerCache: AuthorizerCache<APIGatewayAuthorizerResult>;
  /** Stage throttling: steady requests per second, and the bucket size. */
  throttle: { rate: number; burst: number };
  /** The usage plan's limits of each key; undefined: none (an API key is still required). */
  keyLimits?: KeyLimits | undefined;
  /** Seconds the stage cache keeps a GET /v1/pets page (listing-cache.ts); 0 or undefined: no cache. */
  listingCacheTtlSeconds?: number | undefined;
  /** The budget of bodies being read, each key's share, and how long a body may take: request-body.ts's unless set (tests). */
  bodies?: Partial<BodyReaderOptions>;
  accessLog: (line: AccessLogLine) => void;
}

const EXPECT_DETAIL = 'may only be 100-continue';
/** `GET /` is where a newcomer starts: the 404 says where the API and its reference are. */
const ROOT_MESSAGE = 'No such operation: the API is under /v1, and its reference at /docs';

export const createGateway = (options: GatewayOptions): RequestListener => {
  const { stage, functions, authorizer, authorizerCache, accessLog } = options;
  const throttle = createThrottle(options.throttle.rate, options.throttle.burst);
  const keyLimiter = createKeyLimiter(options.keyLimits);
  const listingCache = createListingCache(options.listingCacheTtlSeconds ?? 0);
  const readBody = createBodyReader(options.bodies);

  const authorize = async (
    token: string,
    methodArn: string,
    log: AccessLogLine,
  ): Promise<CallerIdentity & { usageKey: string | undefined }> => {
    // One lookup per token at a time: requests of a key not yet cached wait for the same answer.
    const policy = await authorizerCache.lookup(token, async () => {
      let result: APIGatewayAuthorizerResult;
      // As $context.authorizer.requestId: the authorizer's invocation, whose line names the key.
      const invocationId = randomUUID();
      log.authorizerRequestId = invocationId;
      try {
        result = await authorizer.invoke({ type: 'TOKEN', authorizationToken: token, methodArn }, invocationId);
      } catch (error) {
        if (error instanceof ConcurrencyLimitExceeded) throw new GatewayError('THROTTLED', 'Too Many Requests');
        log.authorizerError = (error as Error).message;
        if ((error as Error).message === 'Unauthorized') throw new GatewayError('UNAUTHORIZED', 'Unauthorized');
        throw new GatewayError('AUTHORIZER_FAILURE', 'Authorizer failed');
      }
      if (!result?.principalId || !result.policyDocument) {
        throw new GatewayError('AUTHORIZER_CONFIGURATION_ERROR', 'Authorizer returned an invalid response');
      }
      return result;
    });
    // The key is known from here, refused or not: the line names it, as API Gateway's
    // $context.authorizer.principalId is the principalId of the policy it evaluates (the contract:
    // a refused key's id too, where the key is known), a cached policy's included.
    log.keyId = policy.principalId;
    // As API Gateway does, a cached policy is evaluated against every new method ARN.
    if (!allows(policy, methodArn))
      throw new GatewayError('ACCESS_DENIED', 'User is not authorized to access this resource');
    return {
      principalId: policy.principalId,
      context: (policy.context ?? {}) as CallerIdentity['context'],
      usageKey: policy.usageIdentifierKey ?? undefined,
    };
  };

  const handle = async (
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    log: AccessLogLine,
  ): Promise<APIGatewayProxyResult> => {
    // Appended, not resolved: a target like `//x/y` is a path here, never an authority
    // (resolving it threw on `//%zz`: a 500). Other targets (`*`) match no route; an absolute-form
    // one is in origin form by now.
    const url = new URL(`http://localhost${req.url?.startsWith('/') ? req.url : '/'}`);
    const method = req.method ?? 'GET';
    // Everything up to the function's call is decided from the headers: a body is read only
    // for a request the function gets (request-body.ts). Node would answer an expectation it
    // cannot meet with a bare 417: the Error body's 400 instead, whatever the route.
    if (hasUnknownExpectation(req))
      throw new GatewayError('DEFAULT_4XX', `Expect ${EXPECT_DETAIL}`, true, {
        field: 'Expect',
        message: EXPECT_DETAIL,
      });
    if (declaresMoreThanPayloadLimit(req)) throw new GatewayError('REQUEST_TOO_LARGE', 'Request Too Long');
    const match = matchRoute(method, url.pathname);
    if (!match) {
      if (url.pathname === '/') throw new GatewayError('MISSING_AUTHENTICATION_TOKEN', ROOT_MESSAGE, true);
      throw new GatewayError('MISSING_AUTHENTICATION_TOKEN', 'Missing Authentication Token');
    }
    log.resourcePath = resourcePath(match.route);
    if (!throttle.tryTake()) throw new GatewayError('THROTTLED', 'Too Many Requests');

    // Of two Authorization headers Node keeps the first and the function would see the
    // last: a credential that is not exactly one header is none (the contract's 401).
    const token = req.headersDistinct.authorization?.length === 1 ? req.headers.authorization : undefined;
    if (!token || !authorizationFormat.test(token)) throw new GatewayError('UNAUTHORIZED', 'Unauthorized');
    const methodArn = `arn:aws:execute-api:local:${ACCOUNT}:${API_ID}/${stage}/${method}${url.pathname}`;
    const identity = await authorize(token, methodArn, log);
    const refusal = keyLimiter.take(identity.usageKey);
    if (refusal) throw new GatewayError(refusal, KEY_REFUSAL_MESSAGES[refusal]);
    // Within the caller's own share of the bodies' budget: one key's stalled uploads never hold up another's.
    // A route that takes no body reads none and holds none of the budget (a GET that declared 16 KiB
    // and sent nothing held its share until the body timed out); what the client sends is dropped.
    const body = match.route.body
      ? await readBody(req, res, identity.principalId).catch(refuseLateBody)
      : Buffer.alloc(0);

    const event = proxyEvent(clientRequest(req, url, body), match, {
      accountId: ACCOUNT,
      apiId: API_ID,
      stage,
      requestId,
      identity,
    });
    const started = Date.now();
    let result: APIGatewayProxyResult;
    try {
      const invoke = () => functions[match.route.operationId].invoke(event);
      // The stage cache: after the route, throttle, authorizer and key limits, as deployed.
      result = await (match.route.operationId === 'listPets' ? listingCache.serve(url, invoke) : invoke());
    } catch (error) {
      // The function's queue is full: the local stage refuses as a throttle would, never with a 5xx.
      if (error instanceof ConcurrencyLimitExceeded) throw new GatewayError('THROTTLED', 'Too Many Requests');
      log.integrationError = log.integrationErrorMessage = (error as Error).message;
      // Deployed, a function that throws or runs past its timeout is a Lambda error: 502 → INTEGRATION_FAILURE.
      throw new GatewayError('INTEGRATION_FAILURE', 'Internal server error');
    } finally {
      log.integrationLatency = Date.now() - started;
    }
    if (!result || typeof result.statusCode !== 'number') {
      throw new GatewayError('INTEGRATION_FAILURE', 'Malformed Lambda proxy response');
    }
    return result;
  };

  return (req, res) => {
    // An absolute-form target is served as its path, by the reference page too.
    if (req.url) req.url = originForm(req.url);
    if (serveDocsPage(req, res)) return; // the API reference: not part of the API (no key, no throttle, no access log)
    const requestId = randomUUID();
    const started = Date.now();
    const log = accessLogLine(req, requestId, started);
    handle(req, res, requestId, log)
      .catch((error: unknown) => {
        // The client left, or sent a body Node could not parse (answerClientError answers that):
        // nobody waits for this answer, so there is none, and no access log line.
        if (error instanceof RequestAbandoned) return undefined;
        return gatewayErrorResult(error, requestId, log);
      })
      .then((result) => {
        if (!result || res.destroyed) return;
        log.status = result.statusCode;
        log.responseLatency = Date.now() - started;
        log.responseLength =
          'isBase64Encoded' in result && result.isBase64Encoded
            ? Buffer.byteLength(result.body ?? '', 'base64')
            : Buffer.byteLength(result.body ?? '');
        // Logged once the answer is handed to the connection: one line per answer a client got.
        res.once('finish', () => accessLog(log));
        writeResult(res, requestId, result);
      });
  };
};

/** The request as API Gateway reads it: rawHeaders keep the client's spelling of names. */
const clientRequest = (req: IncomingMessage, url: URL, body: Buffer): ClientRequest => {
  const headers: Array<[string, string]> = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.push([req.rawHeaders[i]!, req.rawHeaders[i + 1]!]);
  return {
    url,
    headers,
    // As API Gateway with the API's binary media types: the client's bytes, untouched
    // (decoding them here would put U+FFFD in place of invalid UTF-8 before the function looks).
    ...(body.length && isBinaryMediaType(req.headers['content-type'])
      ? { body: body.toString('base64'), isBase64Encoded: true }
      : { body: body.length ? body.toString('utf8') : null, isBase64Encoded: false }),
    sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
    protocol: `HTTP/${req.httpVersion}`,
    domainName: req.headers.host ?? 'localhost',
  };
};
