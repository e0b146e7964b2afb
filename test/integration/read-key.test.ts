// The stack's read keys (functions/read-key.ts, CloudFormation's custom resource of
// infra/constructs/read-key.ts), run for real against dynalite's keys table, with a loopback
// stand-in for Secrets Manager's PutSecretValue and for the presigned URL CloudFormation reads
// the answer from (a PUT of JSON: "Custom resource response objects", AWS CloudFormation User
// Guide, https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/crpg-ref-responses.html).
import { createServer, type IncomingMessage } from 'node:http';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, expect, test, vi } from 'vitest';
import type { ReadKeyProperties } from '../../functions/read-key.ts';
import { hashKey, KEY_PATTERN } from '../../shared/domain/api-keys.ts';
import { createKeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { keysTable } from '../../shared/dynamodb/tables.ts';
import { type Listening, listenOnLoopback } from '../../tools/harness/loopback.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { setFunctionEnv } from '../support/in-process.ts';

const SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:PetStore-test/probe';

let db: TestDynamoDB;
let host: Listening;
let handler: (event: CloudFormationCustomResourceEvent) => Promise<void>;
/** What each secret holds, and the answers CloudFormation was sent, by request id. */
const secrets = new Map<string, string>();
const answers = new Map<string, Record<string, any>>();
let refuseSecrets = false;

const bodyOf = async (request: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

beforeAll(async () => {
  db = await startTestDynamoDB();
  setFunctionEnv(db.endpoint);
  host = await listenOnLoopback(
    createServer(async (request, response) => {
      const body = await bodyOf(request);
      if (request.method === 'PUT' && request.url?.startsWith('/cloudformation/')) {
        // A presigned S3 URL: signed without a content type, so none may be sent.
        expect(request.headers['content-type'] ?? '').toBe('');
        answers.set(request.url.slice('/cloudformation/'.length), JSON.parse(body));
        return response.writeHead(200).end();
      }
      const input = JSON.parse(body || '{}');
      if (request.headers['x-amz-target'] === 'secretsmanager.PutSecretValue' && !refuseSecrets) {
        secrets.set(input.SecretId, input.SecretString);
        response.writeHead(200, { 'Content-Type': 'application/x-amz-json-1.1' });
        return response.end(JSON.stringify({ ARN: input.SecretId, VersionId: 'v1' }));
      }
      response.writeHead(400, { 'Content-Type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify({ __type: 'AccessDeniedException', message: 'not allowed here' }));
    }),
  );
  process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = host.endpoint;
  ({ handler } = await import('../../functions/read-key.ts'));
  vi.spyOn(console, 'log').mockImplementation(() => {});
}, 60_000);
afterAll(async () => {
  vi.restoreAllMocks();
  await host?.close();
  await db?.close();
});
beforeEach(() => {
  refuseSecrets = false;
});

const properties = (generation: number): ReadKeyProperties => ({
  TableName: keysTable.name,
  SecretArn: SECRET,
  Label: 'PetStore-test release probe (made by the stack)',
  Generation: String(generation),
});

let requests = 0;
/** Sends one CloudFormation request and returns the answer it got. */
const send = async (
  request: { RequestType: 'Create' } | { RequestType: 'Update' | 'Delete'; PhysicalResourceId: string },
  generation = 1,
) => {
  const RequestId = `request-${++requests}`;
  await handler({
    ...request,
    ServiceToken: 'arn:aws:lambda:eu-west-1:123456789012:function:minter',
    ResponseURL: `${host.endpoint}/cloudformation/${RequestId}`,
    StackId: 'arn:aws:cloudformation:eu-west-1:123456789012:stack/PetStore-test/1',
    RequestId,
    LogicalResourceId: 'ReadKeysProbeKey',
    ResourceType: 'Custom::PetStoreReadKey',
    ResourceProperties: { ServiceToken: 'minter', ...properties(generation) },
    ...(request.RequestType === 'Update' && {
      OldResourceProperties: { ServiceToken: 'minter', ...properties(generation - 1) },
    }),
  } as CloudFormationCustomResourceEvent);
  return answers.get(RequestId)!;
};

const keys = () => createKeysRepository(db.client, keysTable.name);

test('Create mints a read key: its hash in the keys table, the key in its secret, its usage identifier to the stack', async () => {
  const answer = await send({ RequestType: 'Create' });
  expect(answer).toMatchObject({ Status: 'SUCCESS', NoEcho: true, LogicalResourceId: 'ReadKeysProbeKey' });
  const key = secrets.get(SECRET)!;
  expect(key).toMatch(KEY_PATTERN);
  // Never the key in the answer CloudFormation keeps.
  expect(JSON.stringify(answer)).not.toContain(key);
  const grant = await keys().lookup(key);
  expect(grant).toMatchObject({
    keyId: answer.Data.KeyId,
    scope: 'read',
    revoked: false,
    usageKey: answer.Data.UsageKey,
  });
  expect(answer.PhysicalResourceId).toBe(`${answer.Data.KeyId}:${hashKey(key)}`);
  // The same item the key tool makes.
  const listed = (await keys().list()).find((record) => record.keyId === answer.Data.KeyId);
  expect(listed).toMatchObject({ label: properties(1).Label, scope: 'read', createdAt: expect.any(String) });
});

test('a new generation replaces the key; CloudFormation then deletes the old resource, which revokes its key', async () => {
  const created = await send({ RequestType: 'Create' });
  const first = secrets.get(SECRET)!;
  const updated = await send({ RequestType: 'Update', PhysicalResourceId: created.PhysicalResourceId }, 2);
  expect(updated.Status).toBe('SUCCESS');
  expect(updated.PhysicalResourceId).not.toBe(created.PhysicalResourceId);
  const second = secrets.get(SECRET)!;
  expect(second).not.toBe(first);
  expect(await keys().lookup(second)).toMatchObject({ scope: 'read', revoked: false });

  const deleted = await send({ RequestType: 'Delete', PhysicalResourceId: created.PhysicalResourceId });
  expect(deleted).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: created.PhysicalResourceId });
  expect((await keys().lookup(first))?.revoked).toBe(true);
  expect((await keys().lookup(second))?.revoked).toBe(false);
});

test('a secret it cannot write fails the resource and leaves no usable key behind', async () => {
  const before = (await keys().list()).length;
  refuseSecrets = true;
  const answer = await send({ RequestType: 'Create' });
  expect(answer).toMatchObject({ Status: 'FAILED', Reason: expect.stringMatching(/^AccessDenied/) });
  const made = (await keys().list()).slice(before);
  expect(made).toHaveLength(1);
  expect(made[0]!.revokedAt).toEqual(expect.any(String));
  // CloudFormation deletes a resource whose create failed: nothing to revoke, and it succeeds.
  const deleted = await send({ RequestType: 'Delete', PhysicalResourceId: answer.PhysicalResourceId });
  expect(deleted.Status).toBe('SUCCESS');
});
