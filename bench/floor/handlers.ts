// The floor: bare Lambda handlers that make the very DynamoDB call of each function
// with a DocumentClient made at init, and return JSON. No middleware, validation,
// logging or metrics. Bundled like the functions (bench/support/lambda-env.ts), they are
// what a function costs at the least; the handler benchmarks set each function against them,
// and the bare servers (bench/support/bare-server.ts, plain-bare-server.ts) serve them over HTTP.
//
// Its client: the SDK's defaults, or with BENCH_FLOOR_CLIENT=functions the functions' own
// settings (shared/dynamodb/client.ts: one signer, the SHA-256 keyed once, the handler cache
// for the animals, their items read by the repository's petOf, lib-dynamodb's commands for the
// keys, as the functions read them), so that
// a function ÷ this floor measures our layers and not the client's tuning.

import { createHash } from 'node:crypto';
import { DynamoDBClient, GetItemCommand, PutItemCommand, QueryCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import {
  QueryCommand as DocQueryCommand,
  ScanCommand as DocScanCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
} from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { createDynamoDBClient } from '../../shared/dynamodb/client.ts';
import { createDocumentClient } from '../../shared/dynamodb/document-client.ts';
import { petOf } from '../../shared/dynamodb/pet-writes.ts';

const functionsClient = process.env.BENCH_FLOOR_CLIENT === 'functions';
/** The animals' calls: with the functions' settings, plain commands and the handler cache, as pets-repository.ts sends them. */
const client = functionsClient ? createDynamoDBClient() : new DynamoDBClient({});
/** lib-dynamodb's commands: every call with the SDK's defaults; the keys' lookup with the functions' (keys-repository.ts). */
const documents = functionsClient ? createDocumentClient() : DynamoDBDocumentClient.from(client);

type Item = Record<string, unknown>;
/** One call of the animals' table, in lib-dynamodb's words or, with the functions' client, as the repository makes it. */
const animals = {
  get: async (TableName: string, Key: Item): Promise<Item | undefined> =>
    functionsClient
      ? petOrNot((await client.send(new GetItemCommand({ TableName, Key: marshall(Key) }))).Item)
      : (await documents.send(new GetCommand({ TableName, Key }))).Item,
  read: async (input: {
    TableName: string;
    IndexName?: string;
    Limit: number;
    KeyConditionExpression?: string;
    ExpressionAttributeValues?: Item;
  }) => {
    if (!functionsClient)
      return (
        (await documents.send(input.IndexName ? new DocQueryCommand(input) : new DocScanCommand(input))).Items ?? []
      );
    const values = input.ExpressionAttributeValues && marshall(input.ExpressionAttributeValues);
    const plain = { ...input, ExpressionAttributeValues: values };
    const { Items = [] } = await client.send(input.IndexName ? new QueryCommand(plain) : new ScanCommand(plain));
    return Items.map(petOf);
  },
  put: async (input: {
    TableName: string;
    Item: Item;
    ConditionExpression: string;
    ExpressionAttributeNames: Record<string, string>;
    ExpressionAttributeValues: Item;
  }) => {
    if (!functionsClient) return void (await documents.send(new PutCommand(input)));
    const { Item: item, ExpressionAttributeValues: values } = input;
    await client.send(
      new PutItemCommand({
        ...input,
        Item: marshall(item, { removeUndefinedValues: true }),
        ExpressionAttributeValues: marshall(values),
      }),
    );
  },
};
/** An animal's item read as the animals' repository reads it (petOf: its four fields, straight from their values). */
const petOrNot = (item: Parameters<typeof petOf>[0] | undefined) => (item ? petOf(item) : undefined);

const pets = process.env.PETS_TABLE_NAME!;
const keys = process.env.KEYS_TABLE_NAME;
let nextId = Date.now() * 1000;

const reply = (statusCode: number, body: unknown) => ({
  statusCode,
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});

export const getPet = async (event: APIGatewayProxyEvent) => {
  const item = await animals.get(pets, { id: Number(event.pathParameters?.petId) });
  return item ? reply(200, item) : reply(404, { message: 'not found' });
};

export const listPets = async (event: APIGatewayProxyEvent) => {
  const limit = Number(event.queryStringParameters?.limit ?? 20);
  const status = event.queryStringParameters?.status;
  const items = await animals.read(
    status
      ? {
          TableName: pets,
          IndexName: 'byStatusShard',
          Limit: limit + 1,
          // One shard (N = 1), the stages' setting: one Query, as listPets makes.
          KeyConditionExpression: 'statusShard = :key',
          ExpressionAttributeValues: { ':key': `${status}#0` },
        }
      : { TableName: pets, Limit: limit + 1 },
  );
  return reply(200, items.slice(0, limit));
};

export const createPet = async (event: APIGatewayProxyEvent) => {
  const body = { status: 'available', ...JSON.parse(event.body ?? '{}') };
  const pet = { id: nextId++, ...body, statusShard: `${body.status}#0` }; // the index key at N = 1
  // The service's very condition (pets-repository.ts), whose parsing the embedded DynamoDB pays for.
  await animals.put({
    TableName: pets,
    Item: pet,
    ConditionExpression:
      'attribute_not_exists(id) OR (#name = :name AND categoryId = :categoryId AND #status = :status)',
    ExpressionAttributeNames: { '#name': 'name', '#status': 'status' },
    ExpressionAttributeValues: { ':name': pet.name, ':categoryId': pet.categoryId, ':status': pet.status },
  });
  return reply(201, pet);
};

export const authorizer = async (event: APIGatewayTokenAuthorizerEvent) => {
  const key = event.authorizationToken.slice('Bearer '.length);
  const { Item } = await documents.send(
    new GetCommand({ TableName: keys, Key: { keyHash: createHash('sha256').update(key).digest('hex') } }),
  );
  if (!Item || Item.revokedAt) throw new Error('Unauthorized');
  return {
    principalId: Item.keyId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: event.methodArn }],
    },
  };
};
