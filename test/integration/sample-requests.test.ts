// The shared sample requests (tools/harness/sample-requests.ts) are what they claim, through the
// real functions in this process against dynalite: each valid one answers its operation's success,
// each invalid one a 400 whose details name its field, each not-found one a 404. The tests and
// benchmarks that build their requests from the table can then rely on it.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { routes } from '../../shared/api/routes.ts';
import { type SampleRequest, sampleHttpRequest, sampleRequests } from '../../tools/harness/sample-requests.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { bodyOf, type Functions, loadFunctions, proxyEvent, setFunctionEnv } from '../support/in-process.ts';

let db: TestDynamoDB;
let functions: Functions;

beforeAll(async () => {
  db = await startTestDynamoDB();
  setFunctionEnv(db.endpoint);
  functions = await loadFunctions();
  // The samples that read an animal read the first one a fresh stage creates.
  const { statusCode } = await send('createPet', sampleRequests.createPet.valid);
  expect(statusCode).toBe(201);
});
afterAll(() => db?.close());

const send = (operationId: (typeof routes)[number]['operationId'], sample: SampleRequest) => {
  const { method, path, headers, body } = sampleHttpRequest(operationId, sample, { versioned: true });
  return functions.invoke(proxyEvent({ method, path, headers, body }));
};

describe.each(routes.map((r) => r.operationId))('%s', (operationId) => {
  const { valid, invalid } = sampleRequests[operationId];

  test(`its valid sample answers ${valid.status}`, async () => {
    expect((await send(operationId, valid)).statusCode).toBe(valid.status);
  });

  test('its invalid sample is a 400 whose details name its field', async () => {
    const answer = await send(operationId, invalid);
    expect(answer.statusCode).toBe(400);
    expect(bodyOf(answer).details.map((d: { field: string }) => d.field)).toContain(invalid.field);
  });
});

/** The operations with a not-found sample: those whose path names a thing. */
const withNotFound = routes.flatMap(({ operationId }) => {
  const { notFound } = sampleRequests[operationId];
  return notFound ? [[operationId, notFound] as const] : [];
});

test.each(withNotFound)('%s: its not-found sample is a 404 NOT_FOUND', async (operationId, notFound) => {
  const answer = await send(operationId, notFound);
  expect(answer.statusCode).toBe(404);
  expect(bodyOf(answer).code).toBe('NOT_FOUND');
});
