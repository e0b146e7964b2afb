// `keys revoke` on a deployed stage also flushes the stage's authorizer cache, so that a
// leaked key is refused at once rather than for up to the cache's TTL. The keys live in
// dynalite; API Gateway cannot run here, so the flush call is caught at the SDK's last step
// before the network and checked for its operation and parameters.
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { KeysRepository } from '../../shared/domain/stores.ts';
import { createKeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { keysTable } from '../../shared/dynamodb/tables.ts';
import { authorizerCacheFlusher, revokingFlushes } from '../../tools/keys/authorizer-cache.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';

let db: TestDynamoDB;
let keys: KeysRepository;
beforeAll(async () => {
  db = await startTestDynamoDB();
  keys = createKeysRepository(db.client, keysTable.name);
});
afterAll(() => db?.close());

/** An API Gateway client whose requests stop before the network; each one is recorded. */
const recordingClient = (fail = false) => {
  const client = new APIGatewayClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const sent: { method: string; path: string }[] = [];
  client.middlewareStack.add(
    () => async (args) => {
      const request = args.request as { method: string; path: string };
      sent.push({ method: request.method, path: request.path });
      if (fail)
        throw Object.assign(new Error('User is not authorized to perform apigateway:DELETE'), {
          name: 'AccessDeniedException',
        });
      return { response: { statusCode: 202, headers: {}, body: undefined }, output: { $metadata: {} } } as never;
    },
    { step: 'finalizeRequest', name: 'recordAndAnswer', priority: 'low' },
  );
  return { client, sent };
};

describe('revoke on a deployed stage', () => {
  test('marks the key revoked, then flushes the authorizer cache of that stage of that API', async () => {
    const { client, sent } = recordingClient();
    const created = await keys.create('leaked');
    vi.spyOn(console, 'log').mockImplementation(() => {});
    const tool = revokingFlushes(keys, authorizerCacheFlusher('abc123', 'production', client), 'production');
    expect(await tool.revoke(created.keyId)).toBe(true);
    expect((await keys.lookup(created.key))?.revoked).toBe(true);
    // FlushStageAuthorizersCache: DELETE /restapis/{restApiId}/stages/{stageName}/cache/authorizers
    expect(sent).toEqual([{ method: 'DELETE', path: '/restapis/abc123/stages/production/cache/authorizers' }]);
  });

  test('flushes nothing for a key that does not exist', async () => {
    const { client, sent } = recordingClient();
    const tool = revokingFlushes(keys, authorizerCacheFlusher('abc123', 'staging', client), 'staging');
    expect(await tool.revoke('key_doesNotExist')).toBe(false);
    expect(sent).toEqual([]);
  });

  test('a failed flush is an error that says the key is revoked and how to flush by hand', async () => {
    const { client } = recordingClient(true);
    const created = await keys.create('leaked too');
    const tool = revokingFlushes(keys, authorizerCacheFlusher('abc123', 'staging', client), 'staging');
    await expect(tool.revoke(created.keyId)).rejects.toThrow(
      new RegExp(`${created.keyId} is revoked, but flushing .* aws apigateway flush-stage-authorizers-cache`),
    );
    expect((await keys.lookup(created.key))?.revoked).toBe(true);
  });
});
