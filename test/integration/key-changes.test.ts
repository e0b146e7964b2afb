// Each change to a key, kept with it in the keys table (dynalite): who, when and why, for create,
// register, rotate and revoke; a key made by nobody named (the stack's read keys) carries none.
// And who "the caller's AWS identity" is on a deployed stage: STS GetCallerIdentity's ARN, read
// by the real SDK from an answer shaped as AWS documents it.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { STSClient } from '@aws-sdk/client-sts';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { generateKey } from '../../shared/domain/api-keys.ts';
import type { KeysRepository } from '../../shared/domain/stores.ts';
import { createKeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { keysTable } from '../../shared/dynamodb/tables.ts';
import { awsCaller } from '../../tools/keys/author.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';

let db: TestDynamoDB;
let keys: KeysRepository;
beforeAll(async () => {
  db = await startTestDynamoDB();
  keys = createKeysRepository(db.client, keysTable.name);
});
afterAll(() => db?.close());

const stored = async (keyId: string) =>
  ((await db.client.send(new ScanCommand({ TableName: keysTable.name }))).Items ?? []).find((i) => i.keyId === keyId)!;

const alice = { by: 'alice', reason: 'OPS-12' };
const bob = { by: 'arn:aws:sts::123456789012:assumed-role/Admin/bob' };

describe('key changes in the keys table', () => {
  test('create stores who, when and why with the key', async () => {
    const created = await keys.create('billing', { author: alice });
    expect((await stored(created.keyId)).changes).toEqual([
      { action: 'created', by: 'alice', at: created.createdAt, reason: 'OPS-12' },
    ]);
  });

  test('rotate appends its change to the old key, and the new key is created by the same caller', async () => {
    const old = await keys.create('mobile', { author: alice });
    const rotated = await keys.rotate(old.keyId, { oldExpiresAt: '2099-01-01T00:00:00.000Z', author: bob });
    const oldChanges = (await stored(old.keyId)).changes;
    expect(oldChanges.map((c: { action: string }) => c.action)).toEqual(['created', 'rotated']);
    expect(oldChanges[1]).toEqual({ action: 'rotated', by: bob.by, at: rotated!.created.createdAt });
    expect(rotated!.old.changes).toEqual(oldChanges);
    expect((await stored(rotated!.created.keyId)).changes).toEqual([
      { action: 'created', by: bob.by, at: rotated!.created.createdAt },
    ]);
  });

  test('revoke records its change once: a second revoke keeps the first one and its time', async () => {
    const created = await keys.create('partner', { author: alice });
    expect(await keys.revoke(created.keyId, { by: 'carol', reason: 'contract ended' })).toBe(true);
    const first = await stored(created.keyId);
    expect(first.changes.at(-1)).toEqual({
      action: 'revoked',
      by: 'carol',
      at: first.revokedAt,
      reason: 'contract ended',
    });
    expect(await keys.revoke(created.keyId, { by: 'dave' })).toBe(true);
    const second = await stored(created.keyId);
    expect(second.revokedAt).toBe(first.revokedAt);
    expect(second.changes).toEqual(first.changes);
  });

  test('register records its author; list returns the changes', async () => {
    const record = await keys.register(generateKey(), 'PETSTORE_API_KEY', { by: 'erin' });
    const listed = (await keys.list()).find((r) => r.keyId === record.keyId)!;
    expect(listed.changes).toEqual([{ action: 'created', by: 'erin', at: record.createdAt }]);
  });

  test('without an author (the stack’s own read keys) a key carries no changes, and a later revoke adds its own', async () => {
    const created = await keys.create('release checks', { scope: 'read' });
    expect(await stored(created.keyId)).not.toHaveProperty('changes');
    await keys.revoke(created.keyId, { by: 'frank' });
    expect((await stored(created.keyId)).changes).toEqual([
      { action: 'revoked', by: 'frank', at: (await stored(created.keyId)).revokedAt },
    ]);
  });
});

describe('the caller on a deployed stage', () => {
  test('is the ARN that STS GetCallerIdentity answers', async () => {
    // The response of AWS's own example
    // (https://docs.aws.amazon.com/STS/latest/APIReference/API_GetCallerIdentity.html, Examples),
    // for an assumed role's session: the query protocol's XML.
    const arn = 'arn:aws:sts::123456789012:assumed-role/my-role-name/my-role-session-name';
    const requests: string[] = [];
    const sts = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        requests.push(body);
        response.writeHead(200, { 'Content-Type': 'text/xml' });
        response.end(`<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <GetCallerIdentityResult>
    <Arn>${arn}</Arn>
    <UserId>AROACLKWSDQRAOEXAMPLE:my-role-session-name</UserId>
    <Account>123456789012</Account>
  </GetCallerIdentityResult>
  <ResponseMetadata>
    <RequestId>c6104cbe-af31-11e0-8154-cbc7ccf896c7</RequestId>
  </ResponseMetadata>
</GetCallerIdentityResponse>`);
      });
    });
    await new Promise<void>((resolve) => sts.listen(0, '127.0.0.1', resolve));
    try {
      const client = new STSClient({
        endpoint: `http://127.0.0.1:${(sts.address() as AddressInfo).port}`,
        region: 'eu-west-1',
        credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
      });
      expect(await awsCaller(client)).toBe(arn);
      expect(requests).toEqual([expect.stringContaining('Action=GetCallerIdentity')]);
    } finally {
      sts.close();
    }
  });
});
