// TOKEN authorizer: `Bearer <key>` → the key's hash in the keys table → Allow on the
// whole stage, naming the caller by key id. API Gateway caches the answer per token,
// so the policy must hold for every route, not just the one that asked.
import { bearerKey } from '../shared/domain/api-keys.ts';
import { authorizerHandler, KeyRefused } from '../shared/lambda/authorizer-handler.ts';
import { keysRepository } from '../shared/lambda/services.ts';

/** `arn:…:api-id/stage/METHOD/path` → `arn:…:api-id/stage/*`. */
const wholeStage = (methodArn: string): string => `${methodArn.split('/', 2).join('/')}/*`;

export const handler = authorizerHandler(async (event) => {
  const key = bearerKey(event.authorizationToken);
  if (!key) throw new KeyRefused('malformed');
  const found = await keysRepository().lookup(key);
  if (!found) throw new KeyRefused('unknown');
  if (found.revoked) throw new KeyRefused('revoked', found.keyId);
  const { keyId, usageKey } = found;

  return {
    principalId: keyId,
    // Which API Gateway API key, so which usage plan limits, count this request (API key
    // source AUTHORIZER). A key without one is refused by API Gateway as having no API key.
    ...(usageKey && { usageIdentifierKey: usageKey }),
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: wholeStage(event.methodArn) }],
    },
    context: { keyId },
  };
});
