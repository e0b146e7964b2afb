// DynamoDB out of reach (nothing listens on its port), through the real function
// chains: a 503 with Retry-After and the contract body, quickly; the authorizer
// fails with something other than `Unauthorized`, which API Gateway answers 503.
import { beforeAll, expect, test } from 'vitest';
import { gatewayResponses } from '../../shared/api/gateway-responses.ts';
import { generateKey } from '../../shared/domain/api-keys.ts';
import { closedPort, FAULT_BUDGET_MS, FAULT_TEST_TABLES, LEAKS } from '../support/faulty-dynamodb.ts';
import {
  bodyOf,
  type Functions,
  jsonPost,
  loadFunctions,
  proxyEvent,
  setFunctionEnv,
  tokenEvent,
} from '../support/in-process.ts';

let functions: Functions;

beforeAll(async () => {
  setFunctionEnv(await closedPort(), FAULT_TEST_TABLES);
  functions = await loadFunctions();
});

test.each([
  ['listPets', () => proxyEvent({ path: '/v1/pets', requestId: 'req-listPets' })],
  ['createPet', () => jsonPost(JSON.stringify({ name: 'Rex', categoryId: 3, status: 'sold' }), {}, 'req-createPet')],
  ['getPet', () => proxyEvent({ path: '/v1/pets/42', requestId: 'req-getPet' })],
])('%s: 503 SERVICE_UNAVAILABLE with Retry-After, inside the budget', async (operationId, event) => {
  const started = performance.now();
  const result = await functions.invoke(event());
  const elapsedMs = performance.now() - started;

  expect(result.statusCode).toBe(503);
  expect(result.headers).toMatchObject({
    'Content-Type': 'application/json',
    'Retry-After': expect.stringMatching(/^[1-9][0-9]*$/),
  });
  expect(bodyOf(result)).toEqual({
    code: 'SERVICE_UNAVAILABLE',
    message: 'The service is temporarily unavailable; retry later',
    status: 503,
    requestId: `req-${operationId}`,
  });
  for (const leak of LEAKS) expect(result.body).not.toContain(leak);
  expect(elapsedMs).toBeLessThan(FAULT_BUDGET_MS);
});

test('the authorizer fails with something other than Unauthorized, which the gateway answers 503', async () => {
  const started = performance.now();
  const error = await functions.authorize(tokenEvent(`Bearer ${generateKey()}`)).then(
    () => undefined,
    (e: Error) => e,
  );
  expect(performance.now() - started).toBeLessThan(FAULT_BUDGET_MS);
  expect(error).toBeInstanceOf(Error);
  expect(error?.message).not.toBe('Unauthorized');
  // Any other failure is API Gateway's AUTHORIZER_FAILURE: the contract's 503, not a 401.
  expect(gatewayResponses.AUTHORIZER_FAILURE).toMatchObject({
    status: 503,
    code: 'SERVICE_UNAVAILABLE',
    headers: { 'Retry-After': '1' },
  });
});

test('a malformed key is still refused with Unauthorized: it never needs DynamoDB', async () => {
  await expect(functions.authorize(tokenEvent('Basic dXNlcjpwYXNz'))).rejects.toThrow(/^Unauthorized$/);
});
