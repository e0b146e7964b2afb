// The TOKEN authorizer, in this process, against the keys table in dynalite.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Route, resourcePath, routes } from '../../shared/api/routes.ts';
import { generateKey, rateLimitsEnv } from '../../shared/domain/api-keys.ts';
import type { KeysRepository } from '../../shared/domain/stores.ts';
import { createKeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { keysTable } from '../../shared/dynamodb/tables.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { type Functions, loadFunctions, METHOD_ARN, setFunctionEnv, tokenEvent } from '../support/in-process.ts';

let db: TestDynamoDB;
let functions: Functions;
let keys: KeysRepository;
let active: { key: string; keyId: string; usageKey: string };

beforeAll(async () => {
  db = await startTestDynamoDB();
  setFunctionEnv(db.endpoint);
  Object.assign(process.env, rateLimitsEnv({ rateLimit: 20, burstLimit: 40, quotaPerDay: 100_000 }));
  functions = await loadFunctions();
  keys = createKeysRepository(db.client, keysTable.name);
  active = await keys.create('authorizer test');
});
afterAll(() => db?.close());

const STAGE_ARN = 'arn:aws:execute-api:us-east-1:123456789012:abc123/staging';
/** A route in a policy, by the authorizer's rule: `METHOD/v1/path`, each `{parameter}` (one path segment) as `*`. */
const routeArn = (r: Route) => `${STAGE_ARN}/${r.method}${resourcePath(r).replace(/\{\w+\}/g, '*')}`;
/** What a method ARN of the route looks like when a caller asks for it: a parameter filled in. */
const askedArn = (r: Route) => routeArn(r).replaceAll('*', '42');
const readable = routes.filter((r) => r.scope === 'read');
const writable = routes.filter((r) => r.scope === 'write');

describe('authorizer', () => {
  test('allows a write key every route of the stage, naming the caller by key id', async () => {
    const result = await functions.authorize(tokenEvent(`Bearer ${active.key}`));
    expect(result).toEqual({
      principalId: active.keyId,
      // Its usage plan key (API key source AUTHORIZER): the separate identifier, never the key.
      usageIdentifierKey: active.usageKey,
      policyDocument: {
        Version: '2012-10-17',
        Statement: [
          {
            Action: 'execute-api:Invoke',
            Effect: 'Allow',
            Resource: routes.map(routeArn),
          },
        ],
      },
      // The stage's limits per key, for the RateLimit-Policy of every answer (function-environment.ts).
      context: {
        keyId: active.keyId,
        scope: 'write',
        rateLimitPolicy: '"burst";q=40;w=1, "steady";q=20;w=1, "daily";q=100000;w=86400',
      },
    });
    // The answer is cached per token for every route: it must not name the key anywhere.
    expect(JSON.stringify(result)).not.toContain(active.key);
    expect(JSON.stringify(result)).not.toContain(active.key.slice(4));
  });

  test('covers every route of the stage, whichever one asked first', async () => {
    const first = await functions.authorize(tokenEvent(`bearer ${active.key}`, METHOD_ARN));
    for (const methodArn of routes.map(askedArn)) {
      const { policyDocument } = await functions.authorize(tokenEvent(`bearer ${active.key}`, methodArn));
      expect(policyDocument).toEqual(first.policyDocument);
    }
  });

  test('allows a read key the read routes and explicitly denies the others, whichever route asked', async () => {
    expect(readable.length * writable.length).toBeGreaterThan(0);
    const reader = await keys.create('reader', { scope: 'read' });
    for (const methodArn of routes.map(askedArn)) {
      const result = await functions.authorize(tokenEvent(`Bearer ${reader.key}`, methodArn));
      expect(result.policyDocument.Statement).toEqual([
        { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: readable.map(routeArn) },
        { Action: 'execute-api:Invoke', Effect: 'Deny', Resource: writable.map(routeArn) },
      ]);
      expect(result.context).toMatchObject({ keyId: reader.keyId, scope: 'read' });
    }
  });

  test('refuses an expired key with exactly `Unauthorized`, and accepts one that expires later', async () => {
    const expired = await keys.create('expired', { expiresAt: new Date(Date.now() - 1000).toISOString() });
    await expect(functions.authorize(tokenEvent(`Bearer ${expired.key}`))).rejects.toThrow(/^Unauthorized$/);
    const later = await keys.create('later', { expiresAt: new Date(Date.now() + 60_000).toISOString() });
    expect((await functions.authorize(tokenEvent(`Bearer ${later.key}`))).principalId).toBe(later.keyId);
  });

  test('records when a key was last used, once per resolution window however often it is checked', async () => {
    const used = await keys.create('used');
    expect((await keys.lookup(used.key))?.lastUsedAt).toBeUndefined();
    const before = Date.now();
    await functions.authorize(tokenEvent(`Bearer ${used.key}`));
    const first = (await keys.lookup(used.key))?.lastUsedAt;
    expect(Date.parse(first!)).toBeGreaterThanOrEqual(before - 1000);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await functions.authorize(tokenEvent(`Bearer ${used.key}`));
    expect((await keys.lookup(used.key))?.lastUsedAt).toBe(first);
  });

  test('refuses a revoked key with exactly `Unauthorized`', async () => {
    const revoked = await keys.create('to be revoked');
    expect((await functions.authorize(tokenEvent(`Bearer ${revoked.key}`))).principalId).toBe(revoked.keyId);
    expect(await keys.revoke(revoked.keyId)).toBe(true);
    await expect(functions.authorize(tokenEvent(`Bearer ${revoked.key}`))).rejects.toThrow(/^Unauthorized$/);
  });

  test.each([
    ['an unknown key', () => `Bearer ${generateKey()}`],
    ['a Basic credential', () => `Basic ${Buffer.from('user:pass').toString('base64')}`],
    ['Bearer alone', () => 'Bearer'],
    ['two tokens', () => `Bearer ${active.key} ${active.key}`],
    ['the key without a scheme', () => active.key],
    ['an altered key', () => `Bearer ${active.key.slice(0, -1)}${active.key.endsWith('a') ? 'b' : 'a'}`],
    ['an empty token', () => ''],
  ])('refuses %s with exactly `Unauthorized`', async (_, token) => {
    const refusal = await functions.authorize(tokenEvent(token())).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(refusal).toBeInstanceOf(Error);
    // API Gateway turns only this exact message into a 401; anything else is a 500.
    expect(refusal?.message).toBe('Unauthorized');
  });
});
