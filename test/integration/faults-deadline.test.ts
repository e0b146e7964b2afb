// A function that runs out of time answers the contract's 504 itself (middy's early
// timeout), with the Error body and requestId, instead of a bare Lambda timeout.
import { afterAll, beforeAll, expect, test } from 'vitest';
import * as z from 'zod/mini';
import { ErrorBody } from '../../shared/api/schemas.ts';
import { FAULT_TEST_TABLES, type FaultyDynamoDB, startFaultyDynamoDB } from '../support/faulty-dynamodb.ts';
import { bodyOf, lambdaContext, proxyEvent, setFunctionEnv } from '../support/in-process.ts';

let dynamodb: FaultyDynamoDB;

beforeAll(async () => {
  dynamodb = await startFaultyDynamoDB('slow');
  setFunctionEnv(dynamodb.endpoint, FAULT_TEST_TABLES);
});
afterAll(() => dynamodb?.close());

test('a DynamoDB slower than the remaining time gives 504 GATEWAY_TIMEOUT with the requestId', async () => {
  const { handler } = await import('../../functions/get-pet.ts');
  const deadline = Date.now() + 300; // far less than the DynamoDB time budget
  const context = { ...lambdaContext('getPet'), getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()) };

  const result = await handler(proxyEvent({ path: '/v1/pets/7', requestId: 'req-deadline' }), context);

  expect(result.statusCode).toBe(504);
  expect(z.strictObject(ErrorBody.shape).parse(bodyOf(result))).toEqual({
    code: 'GATEWAY_TIMEOUT',
    message: expect.any(String),
    status: 504,
    requestId: 'req-deadline',
  });
  // Still a getPet response: the deprecation headers ride on errors too.
  expect(result.headers?.Sunset).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
});
