// DynamoDB throttling, failing on its side and hanging, through the real function
// chains: a 503 with Retry-After and the contract body, inside the time budget.
// A ValidationException is a fault of ours: a bare 500.
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as z from 'zod/mini';
import { ErrorBody } from '../../shared/api/schemas.ts';
import { generateKey } from '../../shared/domain/api-keys.ts';
import {
  FAULT_BUDGET_MS,
  FAULT_TEST_TABLES,
  type FaultyDynamoDB,
  LEAKS,
  startFaultyDynamoDB,
} from '../support/faulty-dynamodb.ts';
import {
  bodyOf,
  type Functions,
  jsonPost,
  loadFunctions,
  proxyEvent,
  setFunctionEnv,
  tokenEvent,
} from '../support/in-process.ts';

let dynamodb: FaultyDynamoDB;
let functions: Functions;

beforeAll(async () => {
  dynamodb = await startFaultyDynamoDB('throttling');
  setFunctionEnv(dynamodb.endpoint, FAULT_TEST_TABLES);
  functions = await loadFunctions();
});
afterAll(() => dynamodb?.close());

const operations: [string, () => APIGatewayProxyEvent][] = [
  ['listPets', () => proxyEvent({ path: '/v1/pets?status=available', requestId: 'req-listPets' })],
  ['createPet', () => jsonPost(JSON.stringify({ name: 'Rex', categoryId: 3 }), {}, 'req-createPet')],
  ['getPet', () => proxyEvent({ path: '/v1/pets/1', requestId: 'req-getPet' })],
];

/** Invokes and times one call. */
const timed = async <T>(call: () => Promise<T>): Promise<{ result: T; elapsedMs: number }> => {
  const started = performance.now();
  const result = await call();
  return { result, elapsedMs: performance.now() - started };
};

/** Past the budget's back-offs (50 then 100 ms) and an attempt: a retry still pending would be seen. */
const QUIET_MS = 400;

/**
 * Nothing the call started is still in flight once it answered: no request reaches DynamoDB
 * after it (in Lambda, one would wait frozen and land in another invocation).
 */
const expectNothingInFlight = async (requests: string[]) => {
  const answered = [...requests];
  await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
  expect(requests).toEqual(answered);
};

/** Requests by DynamoDB operation. */
const attempts = (requests: string[]) => Object.groupBy(requests, (operation) => operation);

const expectUnavailable = (result: APIGatewayProxyResult, requestId: string) => {
  expect(result.statusCode).toBe(503);
  expect(String(result.headers?.['Retry-After'])).toMatch(/^[1-9][0-9]*$/);
  expect(z.strictObject(ErrorBody.shape).parse(bodyOf(result))).toEqual({
    code: 'SERVICE_UNAVAILABLE',
    message: expect.any(String),
    status: 503,
    requestId,
  });
  for (const leak of LEAKS) expect(result.body).not.toContain(leak);
};

describe.each(['throttling', 'internal'] as const)('DynamoDB %s', (fault) => {
  beforeAll(() => {
    dynamodb.fault = fault;
  });

  test.each(operations)('%s: 503 with Retry-After, after a bounded number of retries', async (operationId, event) => {
    dynamodb.requests.length = 0;
    const { result, elapsedMs } = await timed(() => functions.invoke(event()));
    expectUnavailable(result, `req-${operationId}`);
    expect(elapsedMs).toBeLessThan(FAULT_BUDGET_MS);
    await expectNothingInFlight(dynamodb.requests);
    // Retried (a transient fault), but within the budget's three attempts, of one call each.
    // listPets makes two in parallel: its Query and, in a container that never read it, the
    // shard record's GetItem, which it cannot list without (shared/dynamodb/shard-count.ts).
    const calls = Object.values(attempts(dynamodb.requests)).map((sent = []) => sent.length);
    expect(Math.max(...calls)).toBeGreaterThan(1);
    for (const count of calls) expect(count).toBeLessThanOrEqual(3);
    expect(calls.length).toBe(operationId === 'listPets' ? 2 : 1);
  });

  test('the authorizer fails with something other than Unauthorized (→ 503, not 401)', async () => {
    const { result: error } = await timed(() =>
      functions.authorize(tokenEvent(`Bearer ${generateKey()}`)).then(
        () => undefined,
        (e: Error) => e,
      ),
    );
    expect(error).toBeInstanceOf(Error);
    expect(error?.message).not.toBe('Unauthorized');
  });
});

describe('DynamoDB refusing a request as invalid (a fault of ours)', () => {
  beforeAll(() => {
    dynamodb.fault = 'validation';
  });

  test.each(operations)('%s: a bare 500 INTERNAL_ERROR, nothing of the cause, no retry', async (operationId, event) => {
    dynamodb.requests.length = 0;
    const result = await functions.invoke(event());
    expect(result.statusCode).toBe(500);
    expect(bodyOf(result)).toEqual({
      code: 'INTERNAL_ERROR',
      message: expect.any(String),
      status: 500,
      requestId: `req-${operationId}`,
    });
    for (const leak of [...LEAKS, 'ValidationException', 'parameter values']) expect(result.body).not.toContain(leak);
    await expectNothingInFlight(dynamodb.requests);
    // Each call sent once: listPets' Query and shard record's GetItem (above), the others one call.
    expect(dynamodb.requests).toHaveLength(new Set(dynamodb.requests).size);
    expect(dynamodb.requests).toHaveLength(operationId === 'listPets' ? 2 : 1);
  });
});

describe('DynamoDB accepting the connection and never answering', () => {
  beforeAll(() => {
    dynamodb.fault = 'slow';
  });

  // Each call waits out its attempts' timeouts (~3 s): all of them at once.
  test('every operation and the authorizer give up inside the budget', async () => {
    const [calls, authorize] = await Promise.all([
      Promise.all(
        operations.map(([operationId, event]) =>
          timed(() => functions.invoke(event())).then((call) => ({ operationId, ...call })),
        ),
      ),
      timed(() =>
        functions.authorize(tokenEvent(`Bearer ${generateKey()}`)).then(
          () => undefined,
          (e: Error) => e,
        ),
      ),
    ]);
    for (const { operationId, result, elapsedMs } of calls) {
      expectUnavailable(result, `req-${operationId}`);
      expect(elapsedMs, operationId).toBeLessThan(FAULT_BUDGET_MS);
    }
    expect(authorize.result).toBeInstanceOf(Error);
    expect(authorize.result?.message).not.toBe('Unauthorized');
    expect(authorize.elapsedMs).toBeLessThan(FAULT_BUDGET_MS);
  });
});
