// TOKEN authorizer: `Bearer <key>` → the key's hash in the keys table → a policy for the
// whole stage, naming the caller by key id. API Gateway caches the answer per token for
// every route, so the policy must be right for all of them: it allows the methods the
// key's scope may invoke and explicitly denies the others (a `read` key's write is a 403).
import { KEY_SCOPES, type KeyScope, type Route, resourcePath, routes, scopeAllows } from '../shared/api/routes.ts';
import {
  bearerKey,
  isExpired,
  LAST_USE_RESOLUTION_MS,
  rateLimitPolicy,
  rateLimitsFromEnv,
} from '../shared/domain/api-keys.ts';
import { authorizerHandler, KeyRefused } from '../shared/lambda/authorizer-handler.ts';
import { keysRepository, logKeyUseNotRecorded } from '../shared/lambda/keys-service.ts';

/** The stage's limits per key, named in every answer's RateLimit-Policy (stage settings, keyLimits). */
const limits = rateLimitsFromEnv(process.env);
const policyHeader = limits && rateLimitPolicy(limits);

/** `arn:…:api-id/stage/METHOD/path` → `arn:…:api-id/stage/`: what every method ARN of the stage starts with. */
const stagePrefix = (methodArn: string): string => `${methodArn.split('/', 2).join('/')}/`;

/** A route's method ARN after the stage: `METHOD/path`, `{petId}` (one path segment) as `*`. */
const routeSuffix = (route: Route): string => `${route.method}${resourcePath(route).replace(/\{[^}]+\}/g, '*')}`;

/** For each scope, the routes it allows and those it does not, from the route table, once. */
const ROUTES_BY_SCOPE = Object.fromEntries(
  KEY_SCOPES.map((scope) => [
    scope,
    [true, false].map((allow) => routes.filter((r) => scopeAllows(scope, r.scope) === allow).map(routeSuffix)) as [
      string[],
      string[],
    ],
  ]),
) as Record<KeyScope, [allowed: string[], denied: string[]]>;

/**
 * Every route of the route table, allowed when the key's scope may call it and denied
 * explicitly when not: the one cached policy then answers right for every route.
 */
const scopePolicy = (methodArn: string, scope: KeyScope) => {
  const stage = stagePrefix(methodArn);
  const [allowed, denied] = ROUTES_BY_SCOPE[scope];
  const statement = (Effect: 'Allow' | 'Deny', suffixes: string[]) =>
    suffixes.length
      ? [{ Action: 'execute-api:Invoke', Effect, Resource: suffixes.map((suffix) => stage + suffix) }]
      : [];
  return { Version: '2012-10-17', Statement: [...statement('Allow', allowed), ...statement('Deny', denied)] };
};

export const handler = authorizerHandler(async (event, context) => {
  const key = bearerKey(event.authorizationToken);
  if (!key) throw new KeyRefused('malformed');
  const keys = keysRepository();
  const found = await keys.lookup(key);
  if (!found) throw new KeyRefused('unknown');
  if (found.revoked) throw new KeyRefused('revoked', found.keyId);
  if (isExpired(found.expiresAt)) throw new KeyRefused('expired', found.keyId);
  const { keyId, usageKey, scope } = found;
  // At most one write per key per LAST_USE_RESOLUTION_MS, however often the cache lets go of it.
  const now = new Date();
  if (!found.lastUsedAt || now.getTime() - Date.parse(found.lastUsedAt) >= LAST_USE_RESOLUTION_MS) {
    // A record for `keys list`, not a condition of entry: a key is never refused because it
    // failed; the log and KeyUseRecordFailures say so (its grant is narrow: infra/constructs/functions.ts).
    await keys.recordUse(key, now).catch((error: unknown) => logKeyUseNotRecorded(keyId, error, context));
  }

  return {
    principalId: keyId,
    // Which API Gateway API key, so which usage plan limits, count this request (API key
    // source AUTHORIZER). A key without one is refused by API Gateway as having no API key.
    ...(usageKey && { usageIdentifierKey: usageKey }),
    policyDocument: scopePolicy(event.methodArn, scope),
    // Handed to the functions (requestContext.authorizer) and to the gateway responses ($context.authorizer).
    context: { keyId, scope, ...(policyHeader && { rateLimitPolicy: policyHeader }) },
  };
});
