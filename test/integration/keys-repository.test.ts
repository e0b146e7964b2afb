// The keys table in dynalite: create, register, list, rotate, revoke, and the authorizer's lookup and last-use record.
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { generateKey, hashKey, KEY_PATTERN, LAST_USE_RESOLUTION_MS } from '../../shared/domain/api-keys.ts';
import { type KeysRepository, RotationRefused } from '../../shared/domain/stores.ts';
import { createKeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { keysTable } from '../../shared/dynamodb/tables.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';

let db: TestDynamoDB;
let keys: KeysRepository;
beforeAll(async () => {
  db = await startTestDynamoDB();
  keys = createKeysRepository(db.client, keysTable.name);
});
afterAll(() => db?.close());

const storedItems = async () => (await db.client.send(new ScanCommand({ TableName: keysTable.name }))).Items ?? [];

describe('keys repository', () => {
  test('create issues a key once and stores only its SHA-256', async () => {
    const created = await keys.create('mobile app');
    expect(created.key).toMatch(KEY_PATTERN);
    expect(created.keyId).toMatch(/^key_\w+$/);
    expect(created.label).toBe('mobile app');
    expect(Date.parse(created.createdAt)).not.toBeNaN();

    const item = (await storedItems()).find((candidate) => candidate.keyId === created.keyId);
    expect(item).toEqual({
      keyHash: hashKey(created.key),
      keyId: created.keyId,
      label: 'mobile app',
      createdAt: created.createdAt,
      scope: 'write',
      usageKey: created.usageKey,
    });
    expect(JSON.stringify(await storedItems())).not.toContain(created.key);
    // Its own random value, at least the 20 characters API Gateway wants of an API key, and not the key.
    expect(created.usageKey).toMatch(/^[0-9A-Za-z]{20,}$/);
    expect(created.key).not.toContain(created.usageKey);
    const lookup = { keyId: created.keyId, revoked: false, scope: 'write', usageKey: created.usageKey };
    expect(await keys.lookup(created.key)).toEqual(lookup);
  });

  test('register is idempotent: the same key keeps its record', async () => {
    const key = generateKey();
    const first = await keys.register(key, 'PETSTORE_API_KEY');
    const second = await keys.register(key, 'another label');
    expect(second).toEqual(first);
    expect((await storedItems()).filter((item) => item.keyHash === hashKey(key))).toHaveLength(1);
    expect(await keys.lookup(key)).toMatchObject({ keyId: first.keyId, revoked: false });
    expect((await keys.lookup(key))?.usageKey).toMatch(/^[0-9A-Za-z]{20,}$/);
  });

  test('assignUsageKeys gives a usage identifier to each key issued without one, once', async () => {
    const key = generateKey();
    const legacy = {
      keyHash: hashKey(key),
      keyId: 'key_Legacy0001',
      label: 'before usage plans',
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    await db.client.send(new PutCommand({ TableName: keysTable.name, Item: legacy }));
    expect((await keys.lookup(key))?.usageKey).toBeUndefined();

    const assigned = await keys.assignUsageKeys();
    expect(assigned).toEqual([{ keyId: legacy.keyId, usageKey: expect.stringMatching(/^[0-9A-Za-z]{20,}$/) }]);
    expect(await keys.lookup(key)).toEqual({
      keyId: legacy.keyId,
      revoked: false,
      // Issued before scopes: a write key.
      scope: 'write',
      usageKey: assigned[0]!.usageKey,
    });
    expect(await keys.assignUsageKeys()).toEqual([]);
  });

  test('list names keys by id, oldest first, never with their hash', async () => {
    const listed = await keys.list();
    expect(listed.length).toBeGreaterThanOrEqual(2);
    for (const record of listed) expect(Object.keys(record)).not.toContain('keyHash');
    for (const record of listed) expect(Object.keys(record)).not.toContain('usageKey');
    const times = listed.map((record) => record.createdAt);
    expect(times).toEqual([...times].sort());
  });

  test('revoke refuses the key from then on, keeps the first revocation time, and leaves other keys alone', async () => {
    const [doomed, other] = await Promise.all([keys.create('doomed'), keys.create('other')]);
    expect(await keys.revoke(doomed.keyId)).toBe(true);
    expect(await keys.lookup(doomed.key)).toMatchObject({ keyId: doomed.keyId, revoked: true });
    expect(await keys.lookup(other.key)).toMatchObject({ keyId: other.keyId, revoked: false });

    const revokedAt = (await keys.list()).find((record) => record.keyId === doomed.keyId)?.revokedAt;
    expect(Date.parse(revokedAt!)).not.toBeNaN();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await keys.revoke(doomed.keyId)).toBe(true);
    expect((await keys.list()).find((record) => record.keyId === doomed.keyId)?.revokedAt).toBe(revokedAt);
  });

  test('revoking an unknown key id is false and changes nothing', async () => {
    const before = await storedItems();
    expect(await keys.revoke('key_DoesNotExist')).toBe(false);
    expect(await storedItems()).toEqual(before);
  });

  test('registering a revoked key does not bring it back', async () => {
    const key = generateKey();
    const record = await keys.register(key, 'env');
    await keys.revoke(record.keyId);
    expect((await keys.register(key, 'env')).revokedAt).toBeDefined();
    expect(await keys.lookup(key)).toMatchObject({ keyId: record.keyId, revoked: true });
  });

  test('lookup: an unknown key, or a near miss of a real one, is undefined', async () => {
    const { key } = await keys.create('near miss');
    expect(await keys.lookup(generateKey())).toBeUndefined();
    expect(await keys.lookup(key.toUpperCase())).toBeUndefined();
    expect(await keys.lookup(`${key}x`)).toBeUndefined();
  });

  test('create keeps the scope and expiry it was given', async () => {
    const expiresAt = '2030-01-01T00:00:00.000Z';
    const created = await keys.create('dashboard', { scope: 'read', expiresAt });
    expect(created).toMatchObject({ scope: 'read', expiresAt });
    expect(await keys.lookup(created.key)).toMatchObject({ keyId: created.keyId, scope: 'read', expiresAt });
  });

  test('recordUse writes the last use at most once per resolution window', async () => {
    const created = await keys.create('used');
    const first = new Date('2030-01-01T00:00:00.000Z');
    await keys.recordUse(created.key, first);
    await keys.recordUse(created.key, new Date(first.getTime() + 60_000)); // within the window: kept
    expect((await keys.lookup(created.key))?.lastUsedAt).toBe(first.toISOString());
    const later = new Date(first.getTime() + LAST_USE_RESOLUTION_MS + 1);
    await keys.recordUse(created.key, later);
    expect((await keys.lookup(created.key))?.lastUsedAt).toBe(later.toISOString());
    // An unknown key makes no item.
    const before = (await storedItems()).length;
    await keys.recordUse(generateKey(), later);
    expect(await storedItems()).toHaveLength(before);
  });

  test('rotate issues a key with the same label and scope, links the two, and sets the old one to expire', async () => {
    const old = await keys.create('billing', { scope: 'read' });
    const oldExpiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const rotated = await keys.rotate(old.keyId, { oldExpiresAt });
    expect(rotated?.created).toMatchObject({ label: 'billing', scope: 'read', rotatedFrom: old.keyId });
    expect(rotated?.created.key).toMatch(KEY_PATTERN);
    expect(rotated?.created.expiresAt).toBeUndefined();
    const listed = await keys.list();
    expect(listed.find((r) => r.keyId === old.keyId)).toMatchObject({
      rotatedTo: rotated?.created.keyId,
      expiresAt: oldExpiresAt,
    });
    expect(await keys.lookup(rotated!.created.key)).toMatchObject({ revoked: false, scope: 'read' });
    // One successor only: rotating the old key again is refused, and so is rotating a revoked one.
    await expect(keys.rotate(old.keyId, { oldExpiresAt })).rejects.toThrow(RotationRefused);
    await keys.revoke(rotated!.created.keyId);
    await expect(keys.rotate(rotated!.created.keyId, { oldExpiresAt })).rejects.toThrow(/revoked/);
    expect(await keys.rotate('key_NoSuchKey00', { oldExpiresAt })).toBeUndefined();
  });

  test('rotate keeps an earlier expiry of the old key, and gives the new one its own', async () => {
    const soon = new Date(Date.now() + 60_000).toISOString();
    const old = await keys.create('short-lived', { expiresAt: soon });
    const expiresAt = '2031-01-01T00:00:00.000Z';
    const rotated = await keys.rotate(old.keyId, { oldExpiresAt: '2030-01-01T00:00:00.000Z', expiresAt });
    expect(rotated?.old.expiresAt).toBe(soon);
    expect(rotated?.created.expiresAt).toBe(expiresAt);
  });

  test('rotate whose prepare step fails revokes the new key and leaves the old one as it was', async () => {
    const old = await keys.create('unlucky');
    let made: string | undefined;
    await expect(
      keys.rotate(old.keyId, {
        oldExpiresAt: new Date(Date.now() + 60_000).toISOString(),
        prepare: async (created) => {
          made = created.key;
          throw new Error('no API key for you');
        },
      }),
    ).rejects.toThrow('no API key for you');
    expect(await keys.lookup(made!)).toMatchObject({ revoked: true });
    const after = (await keys.list()).find((r) => r.keyId === old.keyId);
    expect(after?.rotatedTo).toBeUndefined();
    expect(after?.expiresAt).toBeUndefined();
  });
});
