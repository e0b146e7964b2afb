// A revoked key is shut out now, not when API Gateway's authorizer cache lets go of
// it: on a deployed stage, `keys revoke` flushes the stage's authorizer cache right after the
// key is marked revoked (on stage local, the running server's: tools/keys/local-stage.ts). Every cached answer goes, so each key's next request runs the
// authorizer once more (one GetItem each): the cost of a revoke is a short burst of checks.
import { APIGatewayClient, FlushStageAuthorizersCacheCommand } from '@aws-sdk/client-api-gateway';
import { DEPLOYED_AUTHORIZER_CACHE_TTL_SECONDS } from '../../infra/stages.ts';
import type { KeysRepository } from '../../shared/domain/stores.ts';

export type FlushAuthorizerCache = () => Promise<void>;

/** Flushes the authorizer cache of `stageName` of the REST API `restApiId` (needs apigateway:DELETE on it). */
export const authorizerCacheFlusher =
  (restApiId: string, stageName: string, client = new APIGatewayClient({})): FlushAuthorizerCache =>
  async () => {
    await client.send(new FlushStageAuthorizersCacheCommand({ restApiId, stageName }));
  };

/** The same keys, whose revoke also flushes the cache; a key that does not exist flushes nothing. */
export const revokingFlushes = (
  keys: KeysRepository,
  flush: FlushAuthorizerCache,
  stage: string,
  retry = `aws apigateway flush-stage-authorizers-cache --rest-api-id <RestApiId output> --stage-name ${stage}`,
): KeysRepository => ({
  ...keys,
  async revoke(keyId, author) {
    if (!(await keys.revoke(keyId, author))) return false;
    try {
      await flush();
    } catch (error) {
      throw new Error(
        `${keyId} is revoked, but flushing the authorizer cache of ${stage} failed (${(error as Error).message}): ` +
          `it may still be accepted for up to ${DEPLOYED_AUTHORIZER_CACHE_TTL_SECONDS / 60} minutes. Retry: ${retry}`,
        { cause: error },
      );
    }
    console.log(`Flushed the authorizer cache of stage ${stage}: the key is refused from the next request on.`);
    return true;
  },
});
