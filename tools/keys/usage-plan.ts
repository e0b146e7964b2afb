// The key tool on a deployed stage, for limits per key: each key it creates gets an API
// Gateway API key whose value is the key's usage identifier (never the key), in the
// stage's usage plan (a rotated key's successor too, before the old key is set to
// expire); revoking a key disables its API key too; `list` shows the plan's limits. The keys table stays the one record of who holds a key.
import {
  type APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  GetApiKeysCommand,
  GetUsagePlanCommand,
  UpdateApiKeyCommand,
} from '@aws-sdk/client-api-gateway';
import { type DeployedStage, type KeyLimits, STAGE_TAG } from '../../infra/stages.ts';
import type { KeysRepository } from '../../shared/domain/stores.ts';

export interface UsagePlan {
  readonly client: APIGatewayClient;
  readonly usagePlanId: string;
  /** Its stage: one account may hold both stages' API keys. */
  readonly stage: DeployedStage;
}

/** The API key of a key id: created by the key tool, named after the stage and the key id. */
const apiKeyName = (plan: UsagePlan, keyId: string) => `petstore-${plan.stage}-${keyId}`;

const addApiKey = async (plan: UsagePlan, keyId: string, usageKey: string, description: string) => {
  const { id } = await plan.client.send(
    new CreateApiKeyCommand({
      name: apiKeyName(plan, keyId),
      value: usageKey,
      enabled: true,
      description,
      // Which stage's it is, for IAM: the other stage's deploy is refused it (STAGE_TAG).
      tags: { [STAGE_TAG]: plan.stage },
    }),
  );
  await plan.client.send(
    new CreateUsagePlanKeyCommand({ usagePlanId: plan.usagePlanId, keyId: id, keyType: 'API_KEY' }),
  );
};

/** The keys repository, with each key's API key kept beside it in the usage plan. */
export const withUsagePlan = (keys: KeysRepository, plan: UsagePlan): KeysRepository => ({
  ...keys,

  async create(label, options) {
    const created = await keys.create(label, options);
    try {
      await addApiKey(plan, created.keyId, created.usageKey, label);
    } catch (error) {
      // A key without its API key would be refused by API Gateway: never hand it out.
      await keys.revoke(
        created.keyId,
        options?.author && {
          by: options.author.by,
          reason: 'its API key could not be made, so it was never handed out',
        },
      );
      throw error;
    }
    return created;
  },

  // The new key gets its API key in the plan before the old one is set to expire (the
  // repository's prepare step): a failure leaves the old key as it was, the new one revoked.
  rotate: (keyId, options) =>
    keys.rotate(keyId, {
      ...options,
      prepare: async (created) => {
        await options.prepare?.(created);
        await addApiKey(plan, created.keyId, created.usageKey, `${created.label} (rotated from ${keyId})`);
      },
    }),

  async revoke(keyId, author) {
    if (!(await keys.revoke(keyId, author))) return false;
    const { items } = await plan.client.send(
      new GetApiKeysCommand({ nameQuery: apiKeyName(plan, keyId), includeValues: false, limit: 500 }),
    );
    for (const apiKey of (items ?? []).filter((item) => item.name === apiKeyName(plan, keyId))) {
      await plan.client.send(
        new UpdateApiKeyCommand({
          apiKey: apiKey.id,
          patchOperations: [{ op: 'replace', path: '/enabled', value: 'false' }],
        }),
      );
    }
    return true;
  },

  async assignUsageKeys() {
    const assigned = await keys.assignUsageKeys();
    for (const { keyId, usageKey } of assigned)
      await addApiKey(plan, keyId, usageKey, `${keyId} (issued before usage plans)`);
    return assigned;
  },
});

/** The plan's limits, which every key in it has on its own. */
export const planLimits = async (plan: UsagePlan): Promise<KeyLimits> => {
  const { throttle, quota } = await plan.client.send(new GetUsagePlanCommand({ usagePlanId: plan.usagePlanId }));
  return {
    rateLimit: throttle?.rateLimit ?? Number.POSITIVE_INFINITY,
    burstLimit: throttle?.burstLimit ?? Number.POSITIVE_INFINITY,
    quotaPerDay: quota?.period === 'DAY' ? quota.limit : undefined,
  };
};
