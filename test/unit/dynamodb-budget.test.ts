// The DynamoDB client's time budget against the functions' timeout: the arithmetic that the
// comments of shared/dynamodb/client.ts and infra/local/config.ts rest on, from the constants.
import { expect, test } from 'vitest';
import { LOCAL_DYNAMODB_REQUEST_TIMEOUT_MS } from '../../infra/local/config.ts';
import { FUNCTION_TIMEOUT_SECONDS } from '../../infra/stages.ts';
import { DYNAMODB_TIME_BUDGET, type TimeBudget } from '../../shared/dynamodb/client.ts';

/** Every attempt timing out on connect and response, with the back-off before each retry. */
const worstCaseMs = ({ maxAttempts, connectionTimeoutMs, requestTimeoutMs, backoffMs }: TimeBudget): number => {
  let total = 0;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    total += connectionTimeoutMs + requestTimeoutMs;
    if (attempt < maxAttempts) total += backoffMs(attempt);
  }
  return total;
};

const functionTimeoutMs = FUNCTION_TIMEOUT_SECONDS * 1000;

test("deployed: one call's worst case is under half the functions' timeout", () => {
  expect(worstCaseMs(DYNAMODB_TIME_BUDGET)).toBeLessThan(functionTimeoutMs / 2);
});

test("local: with the longer default request timeout, one call still ends inside the functions' timeout", () => {
  const local = { ...DYNAMODB_TIME_BUDGET, requestTimeoutMs: LOCAL_DYNAMODB_REQUEST_TIMEOUT_MS };
  expect(worstCaseMs(local)).toBeGreaterThan(worstCaseMs(DYNAMODB_TIME_BUDGET));
  expect(worstCaseMs(local)).toBeLessThan(functionTimeoutMs);
});
