// The key tool's writes whose answer is lost (slower than the SDK's request timeout): the SDK
// retries the conditional put of the new key, which finds its own item already there. The key is
// still issued once, and a rotation still completes (the old key marked, the new one usable),
// never an error after the new key was stored.
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { hashKey } from '../../shared/domain/api-keys.ts';
import { createKeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { keysTable } from '../../shared/dynamodb/tables.ts';
import { budgetedClient, startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { type LostAnswerProxy, startLostAnswerProxy } from '../support/lost-answer-proxy.ts';

let db: TestDynamoDB;
let proxy: LostAnswerProxy;
beforeEach(async () => {
  db = await startTestDynamoDB();
  proxy = await startLostAnswerProxy(db.endpoint, 'PutItem');
});
afterEach(async () => {
  proxy.close();
  await db.close();
});

const stored = async () =>
  (await db.client.send(new ScanCommand({ TableName: keysTable.name, ConsistentRead: true }))).Items ?? [];

test('a create whose put is retried after landing issues the key once', async () => {
  const created = await createKeysRepository(budgetedClient(proxy.endpoint), keysTable.name).create('lost answer');
  expect((await stored()).map((item) => [item.keyHash, item.keyId])).toEqual([[hashKey(created.key), created.keyId]]);
});

test('a rotation whose new key put is retried after landing completes', async () => {
  const old = await createKeysRepository(db.client, keysTable.name).create('rotated');
  const keys = createKeysRepository(budgetedClient(proxy.endpoint), keysTable.name);
  const next = await keys.rotate(old.keyId, { oldExpiresAt: new Date(Date.now() + 60_000).toISOString() });
  const items = await stored();
  expect(items).toHaveLength(2);
  expect(items.find((item) => item.keyId === old.keyId)).toMatchObject({ rotatedTo: next!.created.keyId });
  expect(items.find((item) => item.keyId === next!.created.keyId)).toMatchObject({ rotatedFrom: old.keyId });
  expect(items.some((item) => item.revokedAt !== undefined)).toBe(false);
});
