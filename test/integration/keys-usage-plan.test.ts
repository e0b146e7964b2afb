// The key tool's usage plan calls on a deployed stage, against dynalite for the keys and
// a recording stand-in for API Gateway's REST API: npm has no API Gateway emulator, so
// this checks what the SDK sends (paths, bodies) and what the tool does with the answers.

import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { generateKey, hashKey } from '../../shared/domain/api-keys.ts';
import type { KeysRepository } from '../../shared/domain/stores.ts';
import { createKeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { keysTable } from '../../shared/dynamodb/tables.ts';
import { planLimits, type UsagePlan, withUsagePlan } from '../../tools/keys/usage-plan.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';

interface Call {
  method: string;
  path: string;
  body: Record<string, unknown>;
}

let db: TestDynamoDB;
let apiGateway: Server;
let calls: Call[];
let failCreates = false;
let plan: UsagePlan;
let keys: KeysRepository;

const readBody = (req: IncomingMessage) =>
  new Promise<Record<string, unknown>>((resolve) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => resolve(text ? (JSON.parse(text) as Record<string, unknown>) : {}));
  });

beforeAll(async () => {
  db = await startTestDynamoDB();
  apiGateway = createServer(async (req, res) => {
    const body = await readBody(req);
    const path = req.url!;
    calls.push({ method: req.method!, path, body });
    const answer = (status: number, json: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(json));
    };
    if (req.method === 'POST' && path === '/apikeys') {
      if (failCreates) return answer(429, { message: 'Too Many Requests' });
      return answer(201, { id: `apikey-${body.name}`, name: body.name, enabled: true });
    }
    if (req.method === 'POST' && path === '/usageplans/plan-1/keys')
      return answer(201, { id: body.keyId, type: 'API_KEY' });
    if (req.method === 'GET' && path.startsWith('/apikeys?')) {
      const name = new URL(path, 'http://x').searchParams.get('name');
      // nameQuery matches by prefix: the tool must pick the exact name.
      return answer(200, {
        item: [
          { id: `apikey-${name}`, name },
          { id: 'other', name: `${name}9` },
        ],
      });
    }
    if (req.method === 'PATCH' && path.startsWith('/apikeys/')) return answer(200, {});
    if (req.method === 'GET' && path === '/usageplans/plan-1') {
      return answer(200, {
        id: 'plan-1',
        throttle: { rateLimit: 20, burstLimit: 40 },
        quota: { limit: 100000, period: 'DAY' },
      });
    }
    answer(404, { message: `no route ${req.method} ${path}` });
  });
  await new Promise<void>((resolve) => apiGateway.listen(0, '127.0.0.1', () => resolve()));
  const client = new APIGatewayClient({
    endpoint: `http://127.0.0.1:${(apiGateway.address() as AddressInfo).port}`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
  plan = { client, usagePlanId: 'plan-1', stage: 'staging' };
  keys = withUsagePlan(createKeysRepository(db.client, keysTable.name), plan);
});
afterAll(async () => {
  apiGateway?.close();
  await db?.close();
});
beforeEach(() => {
  calls = [];
  failCreates = false;
});

describe('the key tool on a deployed stage', () => {
  test('create makes the API key, valued by the usage identifier (never the key), and puts it in the plan', async () => {
    const created = await keys.create('mobile app');
    const name = `petstore-staging-${created.keyId}`;
    expect(calls).toEqual([
      {
        method: 'POST',
        path: '/apikeys',
        // Tagged with its stage: API keys are the account's, not the API's, and the other stage's
        // deploy is refused any resource tagged for this one (infra/ci/execution-policy.ts).
        body: {
          name,
          value: created.usageKey,
          enabled: true,
          description: 'mobile app',
          tags: { 'petstore:stage': 'staging' },
        },
      },
      { method: 'POST', path: '/usageplans/plan-1/keys', body: { keyId: `apikey-${name}`, keyType: 'API_KEY' } },
    ]);
    expect(JSON.stringify(calls)).not.toContain(created.key);
    expect((await keys.lookup(created.key))?.revoked).toBe(false);
  });

  test('a key whose API key could not be made is revoked, never handed out', async () => {
    failCreates = true;
    await expect(keys.create('unlucky')).rejects.toThrow();
    const unlucky = (await keys.list()).find((record) => record.label === 'unlucky');
    expect(unlucky?.revokedAt).toBeDefined();
  });

  test('revoke disables exactly the key’s own API key', async () => {
    const created = await keys.create('doomed');
    calls = [];
    expect(await keys.revoke(created.keyId)).toBe(true);
    const name = `petstore-staging-${created.keyId}`;
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      `GET /apikeys?includeValues=false&limit=500&name=${name}`,
      `PATCH /apikeys/${encodeURIComponent(`apikey-${name}`)}`,
    ]);
    expect(calls[1]!.body).toEqual({ patchOperations: [{ op: 'replace', path: '/enabled', value: 'false' }] });
    calls = [];
    expect(await keys.revoke('key_NoSuchKey00')).toBe(false);
    expect(calls).toEqual([]);
  });

  test('sync puts a key issued before usage plans in the plan', async () => {
    const key = generateKey();
    await db.client.send(
      new PutCommand({
        TableName: keysTable.name,
        Item: { keyHash: hashKey(key), keyId: 'key_OldKey0001', label: 'old', createdAt: '2026-01-01T00:00:00.000Z' },
      }),
    );
    const [assigned] = await keys.assignUsageKeys();
    expect(assigned!.keyId).toBe('key_OldKey0001');
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(['POST /apikeys', 'POST /usageplans/plan-1/keys']);
    expect(calls[0]!.body).toMatchObject({ name: 'petstore-staging-key_OldKey0001', value: assigned!.usageKey });
    expect((await keys.lookup(key))?.usageKey).toBe(assigned!.usageKey);
  });

  test('rotate puts the new key in the plan (its own API key) before the old one is set to expire', async () => {
    const old = await keys.create('billing', { scope: 'read' });
    calls = [];
    const oldExpiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const rotated = await keys.rotate(old.keyId, { oldExpiresAt });
    const created = rotated!.created;
    const name = `petstore-staging-${created.keyId}`;
    expect(calls).toEqual([
      {
        method: 'POST',
        path: '/apikeys',
        body: {
          name,
          value: created.usageKey,
          enabled: true,
          description: `billing (rotated from ${old.keyId})`,
          tags: { 'petstore:stage': 'staging' },
        },
      },
      { method: 'POST', path: '/usageplans/plan-1/keys', body: { keyId: `apikey-${name}`, keyType: 'API_KEY' } },
    ]);
    expect(created.usageKey).not.toBe(old.usageKey);
    expect(JSON.stringify(calls)).not.toContain(created.key);
    expect(await keys.lookup(created.key)).toMatchObject({ revoked: false, scope: 'read', usageKey: created.usageKey });
    // The old key keeps its own API key until it expires: its clients stay within the same limits meanwhile.
    expect((await keys.list()).find((r) => r.keyId === old.keyId)).toMatchObject({ expiresAt: oldExpiresAt });
    expect(calls.some((c) => c.method === 'PATCH')).toBe(false);
  });

  test('a rotation whose API key could not be made leaves the old key as it was and the new one revoked', async () => {
    const old = await keys.create('rotation fails');
    failCreates = true;
    await expect(keys.rotate(old.keyId, { oldExpiresAt: new Date(Date.now() + 1000).toISOString() })).rejects.toThrow();
    const listed = await keys.list();
    const before = listed.find((r) => r.keyId === old.keyId);
    expect(before?.rotatedTo).toBeUndefined();
    expect(before?.expiresAt).toBeUndefined();
    const successor = listed.find((r) => r.rotatedFrom === old.keyId);
    expect(successor?.revokedAt).toBeDefined();
  });

  test("list's limits are the usage plan's", async () => {
    expect(await planLimits(plan)).toEqual({ rateLimit: 20, burstLimit: 40, quotaPerDay: 100000 });
  });
});
