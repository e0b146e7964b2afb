// The keys table: the authorizer's one lookup, and the key tool's create/list/revoke.
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { generateKey, generateKeyId, generateUsageKey, hashKey } from '../domain/api-keys.ts';
import type { KeyRecord, KeysRepository } from '../domain/stores.ts';
import { withAvailability } from './client.ts';

interface KeyItem extends KeyRecord {
  keyHash: string;
  /** Absent on keys issued before usage plans, until assignUsageKeys. */
  usageKey?: string;
}

const toRecord = ({ keyHash: _hash, usageKey: _usage, ...record }: KeyItem): KeyRecord => record;

export const createKeysRepository = (client: DynamoDBDocumentClient, tableName: string): KeysRepository => {
  const scanAll = async (): Promise<KeyItem[]> => {
    const items: KeyItem[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await client.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey }));
      items.push(...((page.Items ?? []) as KeyItem[]));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return items;
  };

  const putNew = async (item: KeyItem) => {
    await client.send(
      new PutCommand({ TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(keyHash)' }),
    );
  };

  return {
    async lookup(key) {
      const { Item } = await withAvailability(() =>
        client.send(
          new GetCommand({
            TableName: tableName,
            Key: { keyHash: hashKey(key) },
            ProjectionExpression: 'keyId, revokedAt, usageKey',
          }),
        ),
      );
      if (!Item) return undefined;
      return { keyId: Item.keyId as string, revoked: Item.revokedAt !== undefined, usageKey: Item.usageKey as string };
    },

    async create(label) {
      const key = generateKey();
      const record: KeyRecord = { keyId: generateKeyId(), label, createdAt: new Date().toISOString() };
      const usageKey = generateUsageKey();
      await putNew({ keyHash: hashKey(key), ...record, usageKey });
      return { ...record, key, usageKey };
    },

    async register(key, label) {
      const keyHash = hashKey(key);
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: { keyHash } }));
      if (Item) return toRecord(Item as KeyItem);
      const record: KeyRecord = { keyId: generateKeyId(), label, createdAt: new Date().toISOString() };
      await putNew({ keyHash, ...record, usageKey: generateUsageKey() });
      return record;
    },

    async assignUsageKeys() {
      const assigned: Array<{ keyId: string; usageKey: string }> = [];
      for (const item of (await scanAll()).filter((candidate) => candidate.usageKey === undefined)) {
        const usageKey = generateUsageKey();
        try {
          await client.send(
            new UpdateCommand({
              TableName: tableName,
              Key: { keyHash: item.keyHash },
              UpdateExpression: 'SET usageKey = :usageKey',
              // Another process may have just given it one: keep that one.
              ConditionExpression: 'attribute_exists(keyHash) AND attribute_not_exists(usageKey)',
              ExpressionAttributeValues: { ':usageKey': usageKey },
            }),
          );
          assigned.push({ keyId: item.keyId, usageKey });
        } catch (error) {
          if (!(error instanceof ConditionalCheckFailedException)) throw error;
        }
      }
      return assigned;
    },

    async list() {
      return (await scanAll()).map(toRecord).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    },

    async revoke(keyId) {
      const item = (await scanAll()).find((candidate) => candidate.keyId === keyId);
      if (!item) return false;
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { keyHash: item.keyHash },
          UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)',
          ConditionExpression: 'attribute_exists(keyHash)',
          ExpressionAttributeValues: { ':now': new Date().toISOString() },
        }),
      );
      return true;
    },
  };
};
