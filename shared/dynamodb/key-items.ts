// One key's item in the keys table, written with its record of who changed it: the writes the
// key tool's repository (keys-repository.ts) and the stack's own keys (functions/read-key.ts)
// share, so that a key's `changes` list has one form whoever wrote it.
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { generateKeyId, generateUsageKey, hashKey, type KeyScope } from '../domain/api-keys.ts';
import type { KeyChange, KeyChangeAuthor, KeyRecord } from '../domain/stores.ts';

export interface KeyItem extends KeyRecord {
  keyHash: string;
  /** Absent on keys issued before usage plans, until assignUsageKeys. */
  usageKey?: string;
}

/** `author`'s change, as kept in the key's `changes` list; none without an author. */
export const changeBy = (action: KeyChange['action'], at: string, author: KeyChangeAuthor | undefined): KeyChange[] =>
  author ? [{ action, by: author.by, at, ...(author.reason !== undefined && { reason: author.reason }) }] : [];

/** The update that appends `changes` (none: nothing) to the key's list, for an UpdateExpression's SET. */
export const appendChanges = (changes: KeyChange[]) =>
  changes.length
    ? {
        set: ', changes = list_append(if_not_exists(changes, :noChanges), :changes)',
        values: { ':noChanges': [], ':changes': changes },
      }
    : { set: '', values: {} };

/**
 * Revokes a key not revoked yet, with `author`'s record of it. A revoke that came first wins:
 * its time and its record stand (ConditionalCheckFailed here, which the callers take as done).
 */
export const markRevoked = (
  client: DynamoDBDocumentClient,
  tableName: string,
  keyHash: string,
  author: KeyChangeAuthor | undefined,
) => {
  const now = new Date().toISOString();
  const append = appendChanges(changeBy('revoked', now, author));
  return client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: { keyHash },
      UpdateExpression: `SET revokedAt = :now${append.set}`,
      ConditionExpression: 'attribute_exists(keyHash) AND attribute_not_exists(revokedAt)',
      ExpressionAttributeValues: { ':now': now, ...append.values },
    }),
  );
};

/**
 * Revokes the key whose hash is `keyHash`, recording `author`'s change with it: for a holder of
 * the key's hash only (the stack's read keys: functions/read-key.ts), which needs no scan by key
 * id. A key revoked already keeps its first revocation; an absent one is ConditionalCheckFailed.
 */
export const revokeKeyHash = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  keyHash: string,
  author?: KeyChangeAuthor,
) => {
  try {
    await markRevoked(client, tableName, keyHash, author);
  } catch (error) {
    // Revoked before (a retried Delete, or the key tool): that revocation stands.
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    if ((await keyItemByHash(client, tableName, keyHash)) === undefined) throw error;
  }
};

/** The item of the key whose hash is `keyHash`, read strongly consistent (functions/read-key.ts). */
export const keyItemByHash = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  keyHash: string,
): Promise<KeyItem | undefined> =>
  (await client.send(new GetCommand({ TableName: tableName, Key: { keyHash }, ConsistentRead: true }))).Item as
    | KeyItem
    | undefined;

/**
 * Stores the item of `key`, a key made elsewhere (the stack's read keys hold theirs in a secret
 * first), unless the key has one already: then that item stays and is returned, whoever wrote
 * it (an earlier attempt of the same request, or this put retried after its answer was lost).
 */
export const putKeyItemOnce = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  key: string,
  label: string,
  scope: KeyScope,
  author?: KeyChangeAuthor,
): Promise<KeyItem> => {
  const createdAt = new Date().toISOString();
  const changes = changeBy('created', createdAt, author);
  const item: KeyItem = {
    keyHash: hashKey(key),
    keyId: generateKeyId(),
    label,
    createdAt,
    scope,
    usageKey: generateUsageKey(),
    ...(changes.length && { changes }),
  };
  try {
    await client.send(
      new PutCommand({ TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(keyHash)' }),
    );
    return item;
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const found = await keyItemByHash(client, tableName, item.keyHash);
    if (!found) throw error;
    return found;
  }
};
