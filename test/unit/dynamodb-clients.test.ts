// The container's DynamoDB clients (shared/dynamodb/client.ts, document-client.ts): the animals'
// plain client with the SDK's handler cache, the document client without it (lib-dynamodb's
// commands cannot use it), one pool of connections between them, each made once.
import { expect, test } from 'vitest';
import { dynamodbClient } from '../../shared/dynamodb/client.ts';
import { documentClient } from '../../shared/dynamodb/document-client.ts';

test("the container's clients: each made once, the handler cache on the plain one only, one request handler", () => {
  const plain = dynamodbClient();
  const documents = documentClient();
  expect(dynamodbClient()).toBe(plain);
  expect(documentClient()).toBe(documents);
  expect(plain.config.cacheMiddleware).toBe(true);
  expect(documents.config.cacheMiddleware).toBe(false);
  expect(documents.config.requestHandler).toBe(plain.config.requestHandler);
});
