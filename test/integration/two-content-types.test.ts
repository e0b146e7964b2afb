// A POST /v1/pets with two Content-Type headers is 400 (the contract), so that no part of the
// service reads one and another part the other. Deployed, API Gateway's REST proxy integration
// hands the function every value of a header in `multiValueHeaders` and only the last in
// `headers` ("Input format of a Lambda function for proxy integration", and "Support for
// multi-value headers and query string parameters":
// https://docs.aws.amazon.com/apigateway/latest/developerguide/set-up-lambda-proxy-integrations.html#apigateway-multivalue-headers-and-parameters).
// The events below are written in that shape by hand; the function, reading `headers`, saw only
// the last value and created the animal.
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { bodyOf, type Functions, jsonPost, loadFunctions, setFunctionEnv } from '../support/in-process.ts';

let db: TestDynamoDB;
let functions: Functions;
beforeAll(async () => {
  db = await startTestDynamoDB();
  setFunctionEnv(db.endpoint);
  functions = await loadFunctions();
});
afterAll(() => db?.close());

const key = `Bearer pet_${'A'.repeat(43)}`;

/** A createPet event whose headers are exactly `headers` and `multiValueHeaders`, as API Gateway sends them. */
const withHeaders = (
  headers: Record<string, string>,
  multiValueHeaders: Record<string, string[]>,
): APIGatewayProxyEvent => ({ ...jsonPost('{"name": "Rex", "categoryId": 1}'), headers, multiValueHeaders });

test.each([
  ['the same spelling (the last in `headers`)', { 'Content-Type': ['text/plain', 'application/json'] }],
  ['two spellings', { 'content-type': ['text/plain'], 'Content-Type': ['application/json'] }],
  ['the same value twice', { 'Content-Type': ['application/json', 'application/json'] }],
])('two Content-Type values, %s: 400 naming Content-Type, nothing created', async (_, values) => {
  const last = Object.fromEntries(Object.entries(values).map(([name, all]) => [name, all.at(-1)!]));
  const event = withHeaders(
    { Authorization: key, ...last },
    { Authorization: [key], ...(values as Record<string, string[]>) },
  );
  const result = await functions.invoke(event);
  expect(result.statusCode, result.body).toBe(400);
  expect(bodyOf(result)).toMatchObject({
    code: 'BAD_REQUEST',
    details: [{ field: 'Content-Type', message: expect.stringMatching(/once/) }],
  });
});

test('one Content-Type value: created', async () => {
  const event = withHeaders(
    { Authorization: key, 'Content-Type': 'application/json' },
    { Authorization: [key], 'Content-Type': ['application/json'] },
  );
  expect((await functions.invoke(event)).statusCode).toBe(201);
});
