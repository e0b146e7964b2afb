// TOKEN authorizer: `Bearer <key>` → the key's hash in the keys table → Allow on the
// whole stage, naming the caller by key id. API Gateway caches the answer per token,
// so the policy must hold for every route, not just the one that asked.
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { bearerKey } from '../shared/keys.ts';
import { logger } from '../shared/observability.ts';
import { keysRepository } from '../shared/services.ts';

/** `arn:…:api-id/stage/METHOD/path` → `arn:…:api-id/stage/*`. */
const wholeStage = (methodArn: string): string => `${methodArn.split('/', 2).join('/')}/*`;

/** The one error message API Gateway turns into a 401 (any other is a 500 → our 503). */
const unauthorized = (reason: string): Error => {
  logger.info('key refused', { reason });
  return new Error('Unauthorized');
};

export const handler = middy<APIGatewayTokenAuthorizerEvent, APIGatewayAuthorizerResult>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async (event) => {
    const key = bearerKey(event.authorizationToken);
    if (!key) throw unauthorized('malformed');
    const keyId = await keysRepository().findActiveKeyId(key);
    if (!keyId) throw unauthorized('unknown or revoked');

    logger.appendKeys({ keyId });
    logger.debug('key accepted');
    return {
      principalId: keyId,
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: wholeStage(event.methodArn) }],
      },
      context: { keyId },
    };
  });
