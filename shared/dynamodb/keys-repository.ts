// The keys table: the authorizer's lookup and its last-use record, and the key tool's
// create/rotate/list/revoke.
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  DEFAULT_KEY_SCOPE,
  generateKey,
  generateKeyId,
  generateUsageKey,
  hashKey,
  type KeyScope,
  LAST_USE_RESOLUTION_MS,
} from '../domain/api-keys.ts';
import {
  type KeyChangeAuthor,
  type KeyRecord,
  type KeysRepository,
  type NewKeyOptions,
  RotationRefused,
} from '../domain/stores.ts';
import { withAvailability } from './availability.ts';
import { appendChanges, changeBy, type KeyItem, markRevoked } from './key-items.ts';

const toRecord = ({ keyHash: _hash, usageKey: _usage, ...record }: KeyItem): KeyRecord => record;

/** The earlier of two ISO 8601 times, either of which may be absent. */
const earlier = (a: string | undefined, b: string): string => (a !== undefined && a < b ? a : b);

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

  /**
   * Stores a new key's item, never over another. Its hash is of a fresh random key, so a failed
   * condition means this very put landed before: the SDK retried it after its answer was lost
   * (a timeout). The item found then is ours, and the key is issued, not refused.
   */
  const putNew = async (item: KeyItem) => {
    try {
      await client.send(
        new PutCommand({ TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(keyHash)' }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: { keyHash: item.keyHash }, ConsistentRead: true }),
      );
      if (Item?.keyId !== item.keyId) throw error;
    }
  };

  /** Stores a new key's item (its hash, its record, a usage-plan key) once; a key is never overwritten. */
  const store = async (key: string, label: string, options: NewKeyOptions, rotatedFrom?: string) => {
    const createdAt = new Date().toISOString();
    const changes = changeBy('created', createdAt, options.author);
    const record: KeyRecord = {
      keyId: generateKeyId(),
      label,
      createdAt,
      scope: options.scope ?? DEFAULT_KEY_SCOPE,
      ...(options.expiresAt !== undefined && { expiresAt: options.expiresAt }),
      ...(rotatedFrom !== undefined && { rotatedFrom }),
      ...(changes.length && { changes }),
    };
    const usageKey = generateUsageKey();
    await putNew({ keyHash: hashKey(key), ...record, usageKey });
    return { ...record, usageKey };
  };

  const issue = async (label: string, options: NewKeyOptions, rotatedFrom?: string) => {
    const key = generateKey();
    return { ...(await store(key, label, options, rotatedFrom)), key };
  };

  const findById = async (keyId: string) => (await scanAll()).find((candidate) => candidate.keyId === keyId);

  const revokeOnce = async (keyHash: string, author: KeyChangeAuthor | undefined) => {
    try {
      await markRevoked(client, tableName, keyHash, author);
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // Revoked meanwhile by someone else (an item is never deleted): that revocation stands.
    }
  };

  return {
    async lookup(key) {
      const { Item } = await withAvailability(() =>
        client.send(
          new GetCommand({
            TableName: tableName,
            Key: { keyHash: hashKey(key) },
            ProjectionExpression: 'keyId, revokedAt, usageKey, #scope, expiresAt, lastUsedAt',
            ExpressionAttributeNames: { '#scope': 'scope' },
          }),
        ),
      );
      if (!Item) return undefined;
      return {
        keyId: Item.keyId as string,
        revoked: Item.revokedAt !== undefined,
        scope: (Item.scope as KeyScope | undefined) ?? DEFAULT_KEY_SCOPE,
        expiresAt: Item.expiresAt as string | undefined,
        usageKey: Item.usageKey as string | undefined,
        lastUsedAt: Item.lastUsedAt as string | undefined,
      };
    },

    async recordUse(key, now = new Date()) {
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { keyHash: hashKey(key) },
            // Only these two attributes: the authorizer's role may touch no other (infra/constructs/functions.ts).
            UpdateExpression: 'SET lastUsedAt = :now',
            ConditionExpression:
              'attribute_exists(keyHash) AND (attribute_not_exists(lastUsedAt) OR lastUsedAt < :stale)',
            ExpressionAttributeValues: {
              ':now': now.toISOString(),
              ':stale': new Date(now.getTime() - LAST_USE_RESOLUTION_MS).toISOString(),
            },
          }),
        );
      } catch (error) {
        // Another authorizer recorded a use just now: nothing left to record.
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    },

    create: (label, options = {}) => issue(label, options),

    async rotate(keyId, { oldExpiresAt, expiresAt, prepare, author }) {
      const old = await findById(keyId);
      if (!old) return undefined;
      if (old.revokedAt !== undefined) throw new RotationRefused(`${keyId} is revoked: create a new key instead`);
      if (old.rotatedTo !== undefined)
        throw new RotationRefused(`${keyId} was already rotated to ${old.rotatedTo}: rotate that key instead`);
      const created = await issue(old.label, { scope: old.scope, expiresAt, author }, keyId);
      const oldExpiry = earlier(old.expiresAt, oldExpiresAt);
      const rotation = changeBy('rotated', created.createdAt, author);
      const append = appendChanges(rotation);
      try {
        await prepare?.(created);
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { keyHash: old.keyHash },
            UpdateExpression: `SET rotatedTo = :to, expiresAt = :expires${append.set}`,
            // A revoke or another rotation in between wins: one key never has two successors.
            ConditionExpression:
              'attribute_exists(keyHash) AND attribute_not_exists(revokedAt) AND attribute_not_exists(rotatedTo)',
            ExpressionAttributeValues: { ':to': created.keyId, ':expires': oldExpiry, ...append.values },
          }),
        );
      } catch (error) {
        // Never a key handed out half made: the new one goes, the old one stays as it was.
        await revokeOnce(
          hashKey(created.key),
          author && { by: author.by, reason: `the rotation of ${keyId} to it failed, so it was never handed out` },
        );
        if (error instanceof ConditionalCheckFailedException)
          throw new RotationRefused(`${keyId} was revoked or rotated meanwhile`);
        throw error;
      }
      const changes = [...(old.changes ?? []), ...rotation];
      const oldRecord = { ...toRecord(old), rotatedTo: created.keyId, expiresAt: oldExpiry };
      return { old: changes.length ? { ...oldRecord, changes } : oldRecord, created };
    },

    async register(key, label, author) {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: { keyHash: hashKey(key) } }));
      if (Item) return toRecord(Item as KeyItem);
      const { usageKey: _, ...record } = await store(key, label, { author });
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

    async revoke(keyId, author) {
      const item = await findById(keyId);
      if (!item) return false;
      // Revoked before: the first revocation, its time and its record stand.
      if (item.revokedAt === undefined) await revokeOnce(item.keyHash, author);
      return true;
    },
  };
};
