// The floor: bare Lambda handlers that make the very DynamoDB call of each function
// with a DocumentClient made at init, and return JSON. No middleware, validation,
// logging or metrics. Bundled like the functions (bench/support/lambda-env.ts), they are
// what a function costs at the least; the handler benchmarks set each function against them,
// and the bare server (bench/support/bare-server.ts) serves them over HTTP.

import { createHash } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';

const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const pets = process.env.PETS_TABLE_NAME;
const keys = process.env.KEYS_TABLE_NAME;
let nextId = Date.now() * 1000;

const reply = (statusCode: number, body: unknown) => ({
  statusCode,
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});

export const getPet = async (event: APIGatewayProxyEvent) => {
  const { Item } = await client.send(
    new GetCommand({ TableName: pets, Key: { id: Number(event.pathParameters?.petId) } }),
  );
  return Item ? reply(200, Item) : reply(404, { message: 'not found' });
};

export const listPets = async (event: APIGatewayProxyEvent) => {
  const limit = Number(event.queryStringParameters?.limit ?? 20);
  const status = event.queryStringParameters?.status;
  const { Items = [] } = await client.send(
    status
      ? new QueryCommand({
          TableName: pets,
          IndexName: 'byStatusShard',
          Limit: limit + 1,
          // One shard (N = 1), the stages' setting: one Query, as listPets makes.
          KeyConditionExpression: 'statusShard = :key',
          ExpressionAttributeValues: { ':key': `${status}#0` },
        })
      : new ScanCommand({ TableName: pets, Limit: limit + 1 }),
  );
  return reply(200, Items.slice(0, limit));
};

export const createPet = async (event: APIGatewayProxyEvent) => {
  const body = { status: 'available', ...JSON.parse(event.body ?? '{}') };
  const pet = { id: nextId++, ...body, statusShard: `${body.status}#0` }; // the index key at N = 1
  // The service's very condition (pets-repository.ts), whose parsing the embedded DynamoDB pays for.
  await client.send(
    new PutCommand({
      TableName: pets,
      Item: pet,
      ConditionExpression:
        'attribute_not_exists(id) OR (#name = :name AND categoryId = :categoryId AND #status = :status)',
      ExpressionAttributeNames: { '#name': 'name', '#status': 'status' },
      ExpressionAttributeValues: { ':name': pet.name, ':categoryId': pet.categoryId, ':status': pet.status },
    }),
  );
  return reply(201, pet);
};

export const authorizer = async (event: APIGatewayTokenAuthorizerEvent) => {
  const key = event.authorizationToken.slice('Bearer '.length);
  const { Item } = await client.send(
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
