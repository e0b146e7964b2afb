// Two Authorization headers reach a function as two values (API Gateway keeps each
// header); the function refuses them with the contract's 401, whatever the authorizer
// saw, so that a deployed stage answers as the local one does.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { bodyOf, type Functions, jsonPost, loadFunctions, proxyEvent, setFunctionEnv } from '../support/in-process.ts';

let db: TestDynamoDB;
let functions: Functions;
beforeAll(async () => {
  db = await startTestDynamoDB();
  setFunctionEnv(db.endpoint);
  functions = await loadFunctions();
});
afterAll(() => db?.close());

const key = `Bearer pet_${'A'.repeat(43)}`;

test.each([
  ['listPets', () => proxyEvent({ path: '/v1/pets', headers: { Authorization: key, authorization: 'garbage' } })],
  ['getPet', () => proxyEvent({ path: '/v1/pets/1', headers: { Authorization: key, AUTHORIZATION: key } })],
  ['createPet', () => jsonPost('{"name": "Rex", "categoryId": 1}', { Authorization: key, authorization: key })],
] as const)('%s with two Authorization headers: 401', async (_, event) => {
  const result = await functions.invoke(event());
  expect(result.statusCode).toBe(401);
  expect(bodyOf(result)).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
  expect(result.headers?.['WWW-Authenticate']).toBe('Bearer');
});

test('one Authorization header, given as one value, is served', async () => {
  const event = proxyEvent({ path: '/v1/pets', headers: { Authorization: key } });
  expect(event.multiValueHeaders.Authorization).toEqual([key]);
  expect((await functions.invoke(event)).statusCode).toBe(200);
});
