// The embedded DynamoDB answers only requests signed (Signature Version 4) with its data
// directory's secret: not a made-up secret, not a signed request whose body was changed.
import { rmSync } from 'node:fs';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type EmbeddedDynamoDB, startEmbeddedDynamoDB } from '../../infra/local/embedded-dynamodb.ts';
import { localClientConfig } from '../../infra/local/function-environment.ts';
import { newDataDir } from '../../tools/harness/local-server.ts';

const dataDir = newDataDir();
let dynamodb: EmbeddedDynamoDB;
const clients: DynamoDBClient[] = [];
const client = (url: string) => {
  const made = new DynamoDBClient({ ...localClientConfig(url), maxAttempts: 1 });
  clients.push(made);
  return made;
};

beforeAll(async () => {
  dynamodb = await startEmbeddedDynamoDB(dataDir);
});
afterAll(async () => {
  for (const made of clients) made.destroy();
  await dynamodb.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a request signed with the secret is answered', async () => {
  expect(dynamodb.endpoint).not.toBe(dynamodb.address);
  await expect(client(dynamodb.endpoint).send(new ListTablesCommand({}))).resolves.toMatchObject({
    TableNames: [],
  });
});

test('a request signed with another secret is refused', async () => {
  const other = new URL(dynamodb.endpoint);
  other.password = 'local';
  await expect(client(other.href).send(new ListTablesCommand({}))).rejects.toMatchObject({
    name: 'UnrecognizedClientException',
  });
  await expect(client(dynamodb.address).send(new ListTablesCommand({}))).rejects.toMatchObject({
    name: 'UnrecognizedClientException',
  });
});

test('a signed request whose body was changed after signing is refused', async () => {
  const tampering = client(dynamodb.endpoint);
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
