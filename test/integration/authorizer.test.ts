// The TOKEN authorizer, in this process, against the keys table in dynalite.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { generateKey } from '../../shared/domain/api-keys.ts';
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
  functions = await loadFunctions();
  keys = createKeysRepository(db.client, keysTable.name);
  active = await keys.create('authorizer test');
});
afterAll(() => db?.close());

describe('authorizer', () => {
  test('allows an active key on the whole stage, naming the caller by key id', async () => {
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
            Resource: 'arn:aws:execute-api:us-east-1:123456789012:abc123/staging/*',
          },
        ],
      },
      context: { keyId: active.keyId },
    });
    // The answer is cached per token for every route: it must not name the key anywhere.
    expect(JSON.stringify(result)).not.toContain(active.key);
    expect(JSON.stringify(result)).not.toContain(active.key.slice(4));
  });

  test('covers every route of the stage, whichever one asked first', async () => {
    const arn = METHOD_ARN.replace('GET/v1/pets', 'POST/v1/pets');
    const deep = METHOD_ARN.replace('GET/v1/pets', 'GET/v1/pets/42');
    for (const methodArn of [arn, deep]) {
      const { policyDocument } = await functions.authorize(tokenEvent(`bearer ${active.key}`, methodArn));
      expect(policyDocument.Statement).toEqual([
        expect.objectContaining({ Resource: 'arn:aws:execute-api:us-east-1:123456789012:abc123/staging/*' }),
      ]);
    }
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
