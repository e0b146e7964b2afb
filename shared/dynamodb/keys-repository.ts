// The keys table: the authorizer's one lookup, and the key tool's create/list/revoke.
import { GetCommand, PutCommand, ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { withAvailability } from './client.ts';
import { generateKey, generateKeyId, hashKey } from '../domain/api-keys.ts';

export interface KeyRecord {
  keyId: string;
  label: string;
  createdAt: string;
  revokedAt?: string;
}
interface KeyItem extends KeyRecord {
  keyHash: string;
}

export interface KeysRepository {
  /** The key's id and whether it was revoked; undefined when no such key was ever issued. */
  lookup(key: string): Promise<{ keyId: string; revoked: boolean } | undefined>;
  /** Issues a new key: the only time the key itself is ever seen. */
  create(label: string): Promise<KeyRecord & { key: string }>;
  /** Registers a key chosen elsewhere (PETSTORE_API_KEY); keeps the record if it exists. */
  register(key: string, label: string): Promise<KeyRecord>;
  list(): Promise<KeyRecord[]>;
  /** Revokes by key id; false when no such key exists. Revoking twice keeps the first time. */
  revoke(keyId: string): Promise<boolean>;
}

const toRecord = ({ keyHash: _hash, ...record }: KeyItem): KeyRecord => record;

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
            ProjectionExpression: 'keyId, revokedAt',
          }),
        ),
      );
      return Item ? { keyId: Item.keyId as string, revoked: Item.revokedAt !== undefined } : undefined;
    },

    async create(label) {
      const key = generateKey();
      const record: KeyRecord = { keyId: generateKeyId(), label, createdAt: new Date().toISOString() };
      await putNew({ keyHash: hashKey(key), ...record });
      return { ...record, key };
    },

    async register(key, label) {
      const keyHash = hashKey(key);
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: { keyHash } }));
      if (Item) return toRecord(Item as KeyItem);
      const record: KeyRecord = { keyId: generateKeyId(), label, createdAt: new Date().toISOString() };
      await putNew({ keyHash, ...record });
      return record;
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
