// The stack's read keys (functions/read-key.ts, CloudFormation's custom resource of
// infra/constructs/read-key.ts), run for real against dynalite's keys table, with a loopback
// stand-in for Secrets Manager (test/support/secrets-manager.ts) and for the presigned URL
// CloudFormation reads the answer from (a PUT of JSON: "Custom resource response objects",
// https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/crpg-ref-responses.html).
//
// The sequences are CloudFormation's, from its documentation and its users' trackers:
// - Update: "If the value returned [PhysicalResourceId] is different, CloudFormation recognizes
//   the update as a replacement and sends a delete request to the old resource"
//   (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/crpg-ref-requesttypes-update.html),
//   during the stack's cleanup (UPDATE_COMPLETE_CLEANUP_IN_PROGRESS), after the update succeeded.
// - A rollback sends the custom resource an Update back to its old properties, with the physical
//   id the failed update answered, then deletes that one ("UPDATE custom resource (new -> old)":
//   https://github.com/aws/aws-cdk/pull/29581; https://github.com/aws/aws-cdk/issues/17040).
// - CloudFormation invokes the function asynchronously; Lambda runs an event whose invocation
//   failed again, up to two more times
//   (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html): the
//   same request, RequestId included, when the function's answer did not reach CloudFormation.
// - Delete (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/crpg-ref-requesttypes-delete.html),
//   also sent after a failed Create with the physical id that Create answered.
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, expect, test, vi } from 'vitest';
import { hashKey, KEY_PATTERN } from '../../shared/domain/api-keys.ts';
import { createKeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { keysTable } from '../../shared/dynamodb/tables.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { setFunctionEnv } from '../support/in-process.ts';
import { readKeyResource } from '../support/read-key-resource.ts';
import { type SecretsManagerStandIn, startSecretsManager } from '../support/secrets-manager.ts';

let db: TestDynamoDB;
let aws: SecretsManagerStandIn;
let handler: (event: CloudFormationCustomResourceEvent) => Promise<void>;
/** The answers CloudFormation was sent, by request id; `lose` answers that many PUTs with a 500 first. */
const answers = new Map<string, Record<string, any>>();
let lose = 0;

beforeAll(async () => {
  db = await startTestDynamoDB();
  setFunctionEnv(db.endpoint);
  aws = await startSecretsManager((request, body, response) => {
    if (request.method === 'PUT' && request.url?.startsWith('/cloudformation/')) {
      // A presigned S3 URL: signed without a content type, so none may be sent.
      expect(request.headers['content-type'] ?? '').toBe('');
      if (lose > 0) {
        lose--;
        return response.writeHead(500).end();
      }
      answers.set(request.url.slice('/cloudformation/'.length), JSON.parse(body));
      return response.writeHead(200).end();
    }
    response.writeHead(404).end();
  });
  process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = aws.endpoint;
  ({ handler } = await import('../../functions/read-key.ts'));
  vi.spyOn(console, 'log').mockImplementation(() => {});
}, 60_000);
afterAll(async () => {
  vi.restoreAllMocks();
  await aws?.close();
  await db?.close();
});
beforeEach(() => {
  lose = 0;
});

/** One resource: its own secret, as each read key of the stack has. */
const resource = () => readKeyResource({ endpoint: aws.endpoint, answers, handler, secret: (n) => aws.current(n) });

const keys = () => createKeysRepository(db.client, keysTable.name);
/** The keys of the table labelled `label` that are not revoked. */
const validKeys = async (label: string) =>
  (await keys().list()).filter((record) => record.label === label && record.revokedAt === undefined);
/** What the stack's API key holds and what the table says of the key in the secret agree. */
const agrees = async (secretKey: string, apiKeyValue: string) => {
  const grant = await keys().lookup(secretKey);
  expect(grant).toMatchObject({ scope: 'read', revoked: false, usageKey: apiKeyValue });
};

test('Create mints a read key: its hash in the keys table, the key in its secret, its usage identifier to the stack', async () => {
  const r = resource();
  const answer = await r.send({ RequestType: 'Create', props: r.properties(1) });
  expect(answer).toMatchObject({ Status: 'SUCCESS', NoEcho: true, LogicalResourceId: 'ReadKeysProbeKey' });
  const key = r.key();
  expect(key).toMatch(KEY_PATTERN);
  // Never the key in the answer CloudFormation keeps.
  expect(JSON.stringify(answer)).not.toContain(key);
  expect(await keys().lookup(key)).toMatchObject({ keyId: answer.Data.KeyId, scope: 'read', revoked: false });
  expect(answer.PhysicalResourceId).toBe(`${answer.Data.KeyId}:${hashKey(key)}`);
  await agrees(key, answer.Data.UsageKey);
  // The same item the key tool makes.
  const listed = (await keys().list()).find((record) => record.keyId === answer.Data.KeyId);
  expect(listed).toMatchObject({ label: r.properties(1).Label, scope: 'read', createdAt: expect.any(String) });
  // Who made it, as `keys list` shows it (the contract: each change to a key records who made it).
  expect(listed?.changes).toEqual([
    {
      action: 'created',
      by: 'CloudFormation PetStore-test ReadKeysProbeKey',
      at: listed?.createdAt,
      reason: 'generation 1',
    },
  ]);
});

test("Create with the scope write (staging's smoke key) mints a write key, the same way", async () => {
  const r = resource();
  const answer = await r.send({ RequestType: 'Create', props: r.properties(1, 'PetStore-test smoke run', 'write') });
  expect(answer).toMatchObject({ Status: 'SUCCESS', NoEcho: true });
  const grant = await keys().lookup(r.key());
  expect(grant).toMatchObject({ keyId: answer.Data.KeyId, scope: 'write', revoked: false });
  expect(grant).toMatchObject({ usageKey: answer.Data.UsageKey });
});

test('a template from before the scope property (none given) mints a read key, not the default write', async () => {
  const r = resource();
  const { Scope: _, ...before } = r.properties(1, 'PetStore-test older template');
  const answer = await r.send({ RequestType: 'Create', props: before });
  expect(answer).toMatchObject({ Status: 'SUCCESS' });
  expect(await keys().lookup(r.key())).toMatchObject({ keyId: answer.Data.KeyId, scope: 'read', revoked: false });
});

test('a Create delivered again (its answer was lost) mints nothing: the same key, the same physical id', async () => {
  const r = resource();
  const label = 'PetStore-test retried create';
  const create = r.event({ RequestType: 'Create', props: r.properties(1, label) });
  lose = 1;
  await expect(handler(create)).rejects.toThrow(/refused the response: 500/);
  const first = r.key();
  const answer = await r.deliver(create);
  expect(answer.Status).toBe('SUCCESS');
  expect(r.key()).toBe(first);
  expect(answer.PhysicalResourceId).toBe(`${answer.Data.KeyId}:${hashKey(first)}`);
  expect(await validKeys(label)).toHaveLength(1);
  await agrees(first, answer.Data.UsageKey);
});

test('an Update that keeps the generation (a new label, a new function) keeps the key and its physical id', async () => {
  const r = resource();
  const created = await r.send({ RequestType: 'Create', props: r.properties(1, 'PetStore-test same generation') });
  const first = r.key();
  const updated = await r.send({
    RequestType: 'Update',
    PhysicalResourceId: created.PhysicalResourceId,
    props: r.properties(1, 'PetStore-test same generation, relabelled'),
    old: r.properties(1, 'PetStore-test same generation'),
  });
  expect(updated).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: created.PhysicalResourceId });
  expect(updated.Data).toEqual(created.Data);
  expect(r.key()).toBe(first);
  await agrees(first, updated.Data.UsageKey);
});

test('a new generation: a new key at once, the old one valid until the cleanup deletes its resource', async () => {
  const r = resource();
  const created = await r.send({ RequestType: 'Create', props: r.properties(1) });
  const first = r.key();
  const updated = await r.send({
    RequestType: 'Update',
    PhysicalResourceId: created.PhysicalResourceId,
    props: r.properties(2),
    old: r.properties(1),
  });
  expect(updated.Status).toBe('SUCCESS');
  expect(updated.PhysicalResourceId).not.toBe(created.PhysicalResourceId);
  const second = r.key();
  expect(second).not.toBe(first);
  await agrees(second, updated.Data.UsageKey);
  // Until the update succeeded, the key in use before stays valid (a rollback may return to it).
  expect((await keys().lookup(first))?.revoked).toBe(false);

  const deleted = await r.send({
    RequestType: 'Delete',
    PhysicalResourceId: created.PhysicalResourceId,
    props: r.properties(1),
  });
  expect(deleted).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: created.PhysicalResourceId });
  expect((await keys().lookup(first))?.revoked).toBe(true);
  expect((await keys().lookup(second))?.revoked).toBe(false);
});

test('a new generation rolled back: the old key in use again, nothing minted, the new one revoked by its delete', async () => {
  const r = resource();
  const label = 'PetStore-test rolled back';
  const created = await r.send({ RequestType: 'Create', props: r.properties(1, label) });
  const first = r.key();
  const updated = await r.send({
    RequestType: 'Update',
    PhysicalResourceId: created.PhysicalResourceId,
    props: r.properties(2, label),
    old: r.properties(1, label),
  });
  const second = r.key();
  // Another resource failed: CloudFormation sends this one back to its old properties ...
  const rolledBack = await r.send({
    RequestType: 'Update',
    PhysicalResourceId: updated.PhysicalResourceId,
    props: r.properties(1, label),
    old: r.properties(2, label),
  });
  expect(rolledBack).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: created.PhysicalResourceId });
  expect(rolledBack.Data).toEqual(created.Data);
  expect(r.key()).toBe(first);
  // ... and, the physical id having changed back, deletes the one the failed update made.
  await r.send({
    RequestType: 'Delete',
    PhysicalResourceId: updated.PhysicalResourceId,
    props: r.properties(2, label),
  });
  expect((await keys().lookup(second))?.revoked).toBe(true);
  expect((await validKeys(label)).map((record) => record.keyId)).toEqual([created.Data.KeyId]);
  // The API key CloudFormation rolled back to holds the Create's usage identifier.
  await agrees(first, created.Data.UsageKey);

  // The same generation raised again later: a new key, not the revoked one.
  const again = await r.send({
    RequestType: 'Update',
    PhysicalResourceId: created.PhysicalResourceId,
    props: r.properties(2, label),
    old: r.properties(1, label),
  });
  expect(again.Status).toBe('SUCCESS');
  expect(r.key()).not.toBe(second);
  await agrees(r.key(), again.Data.UsageKey);
});

test('an Update that fails half-way leaves the key in use current and valid; its retry completes it', async () => {
  const r = resource();
  const label = 'PetStore-test half-way';
  const created = await r.send({ RequestType: 'Create', props: r.properties(1, label) });
  const first = r.key();
  aws.refuse('UpdateSecretVersionStage');
  const update = r.event({
    RequestType: 'Update',
    PhysicalResourceId: created.PhysicalResourceId,
    props: r.properties(2, label),
    old: r.properties(1, label),
  });
  const failed = await r.deliver(update);
  expect(failed).toMatchObject({ Status: 'FAILED', PhysicalResourceId: created.PhysicalResourceId });
  expect(r.key()).toBe(first);
  await agrees(first, created.Data.UsageKey);
  const retried = await r.deliver(update);
  expect(retried.Status).toBe('SUCCESS');
  await agrees(r.key(), retried.Data.UsageKey);
  expect(await validKeys(label)).toHaveLength(2);
});

test('Delete revokes the key; the Delete after a failed Create has nothing to revoke and succeeds', async () => {
  const r = resource();
  const created = await r.send({ RequestType: 'Create', props: r.properties(1) });
  const key = r.key();
  const deleted = await r.send({
    RequestType: 'Delete',
    PhysicalResourceId: created.PhysicalResourceId,
    props: r.properties(1),
  });
  expect(deleted.Status).toBe('SUCCESS');
  expect((await keys().lookup(key))?.revoked).toBe(true);
  const revoked = (await keys().list()).find((record) => record.keyId === created.Data.KeyId);
  expect(revoked?.changes?.map(({ action, by }) => [action, by])).toEqual([
    ['created', 'CloudFormation PetStore-test ReadKeysProbeKey'],
    ['revoked', 'CloudFormation PetStore-test ReadKeysProbeKey'],
  ]);
  expect(revoked?.changes?.at(-1)?.at).toBe(revoked?.revokedAt);
  // A Delete delivered again records nothing more: the first revocation stands.
  await r.send({ RequestType: 'Delete', PhysicalResourceId: created.PhysicalResourceId, props: r.properties(1) });
  expect((await keys().list()).find((record) => record.keyId === created.Data.KeyId)).toEqual(revoked);

  const other = resource();
  const before = (await keys().list()).length;
  aws.refuse('PutSecretValue');
  const failed = await other.send({ RequestType: 'Create', props: other.properties(1) });
  expect(failed).toMatchObject({ Status: 'FAILED', Reason: expect.stringMatching(/^AccessDenied/) });
  // The key goes to the secret first: refused there, it is nowhere.
  expect((await keys().list()).length).toBe(before);
  const cleaned = await other.send({
    RequestType: 'Delete',
    PhysicalResourceId: failed.PhysicalResourceId,
    props: other.properties(1),
  });
  expect(cleaned.Status).toBe('SUCCESS');
});
