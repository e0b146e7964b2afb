// The embedded DynamoDB's TCP port answers only requests signed (Signature Version 4) with the
// store's secret: not a made-up secret, not a signed request whose body was changed, not one
// replayed past AWS's 15 minutes or after a restart. (Its Unix socket is the file system's to
// guard: embedded-dynamodb-socket.test.ts.)
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type EmbeddedDynamoDB, startEmbeddedDynamoDB } from '../../infra/local/embedded-dynamodb.ts';
import { localClientConfig } from '../../infra/local/function-environment.ts';
import { newDataDir } from '../../tools/harness/local-server.ts';

const dataDir = newDataDir();
let dynamodb: EmbeddedDynamoDB;
/** The store's URL with its credential, over TCP: what a developer's tool is given. */
let tcp: string;
const clients: DynamoDBClient[] = [];
const client = (url: string) => {
  const made = new DynamoDBClient({ ...localClientConfig(url), maxAttempts: 1 });
  clients.push(made);
  return made;
};
const overTcp = (url: string): string => {
  const parsed = new URL(url);
  parsed.searchParams.delete('socket');
  return parsed.href;
};

beforeAll(async () => {
  dynamodb = await startEmbeddedDynamoDB(dataDir);
  tcp = overTcp(dynamodb.endpoint);
});
afterAll(async () => {
  for (const made of clients) made.destroy();
  await dynamodb.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a request signed with the secret is answered', async () => {
  expect(tcp).not.toBe(dynamodb.address);
  await expect(client(tcp).send(new ListTablesCommand({}))).resolves.toMatchObject({
    TableNames: [],
  });
});

test('a request signed with another secret is refused', async () => {
  const other = new URL(tcp);
  other.password = 'local';
  await expect(client(other.href).send(new ListTablesCommand({}))).rejects.toMatchObject({
    name: 'UnrecognizedClientException',
  });
  await expect(client(dynamodb.address).send(new ListTablesCommand({}))).rejects.toMatchObject({
    name: 'UnrecognizedClientException',
  });
});

test('a signed request whose body was changed after signing is refused', async () => {
  const tampering = client(tcp);
  tampering.middlewareStack.addRelativeTo(
    (next: (args: any) => Promise<any>) => async (args: any) => {
      args.request.body = JSON.stringify({ Limit: 1 });
      args.request.headers['content-length'] = String(args.request.body.length);
      return next(args);
    },
    { relation: 'after', toMiddleware: 'httpSigningMiddleware', name: 'tamper' },
  );
  await expect(tampering.send(new ListTablesCommand({}))).rejects.toMatchObject({
    name: 'UnrecognizedClientException',
  });
});

// A client may sign the body's hash as x-amz-content-sha256 (the SDK's signer then takes the
// header's value as the payload's hash). The store must hash the body it received, not trust the
// header: a request signed once could otherwise be replayed with any other body. AWS's rule, "the
// hash of the request payload ... must be the hash of the payload as received":
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html
const withContentHashHeader = (made: DynamoDBClient, tamper: boolean) => {
  made.middlewareStack.addRelativeTo(
    (next: (args: any) => Promise<any>) => async (args: any) => {
      args.request.headers['x-amz-content-sha256'] = createHash('sha256').update(args.request.body).digest('hex');
      return next(args);
    },
    { relation: 'before', toMiddleware: 'httpSigningMiddleware', name: 'contentHash' },
  );
  if (tamper)
    made.middlewareStack.addRelativeTo(
      (next: (args: any) => Promise<any>) => async (args: any) => {
        // Another body of the same length, so that the signed content-length still holds.
        args.request.body = JSON.stringify({ Limit: 1 });
        return next(args);
      },
      { relation: 'after', toMiddleware: 'httpSigningMiddleware', name: 'tamper' },
    );
  return made;
};

test('a request that signs its body hash as x-amz-content-sha256 is answered', async () => {
  await expect(withContentHashHeader(client(tcp), false).send(new ListTablesCommand({}))).resolves.toMatchObject({
    TableNames: [],
  });
});

test('a signed x-amz-content-sha256 does not vouch for another body: the body is hashed as received', async () => {
  await expect(
    withContentHashHeader(client(tcp), true).send(new ListTablesCommand({ Limit: 5 })),
  ).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
});
