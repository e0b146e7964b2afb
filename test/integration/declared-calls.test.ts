// Each operation's route entry names every DynamoDB call its handler makes (the entry's `dynamodb`
// becomes its IAM grants, so a call it leaves out is an AccessDenied, a 500, on AWS only: the
// local stage grants everything). Here the real functions answer every sample request of their
// operation (shared/release-checks/samples.ts), filtered by status too where they read a query,
// through a proxy that sees each call on the wire; every call seen must be one the entry names.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type OperationId, route, routes } from '../../shared/api/routes.ts';
import { type DynamoDBProxy, startDynamoDBProxy } from '../../tools/harness/dynamodb-proxy.ts';
import { type SampleRequest, sampleHttpRequest, sampleRequests } from '../../tools/harness/sample-requests.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { type Functions, loadFunctions, proxyEvent, setFunctionEnv } from '../support/in-process.ts';

let db: TestDynamoDB;
let proxy: DynamoDBProxy;
let functions: Functions;
beforeAll(async () => {
  db = await startTestDynamoDB();
  proxy = await startDynamoDBProxy(db.endpoint);
  setFunctionEnv(proxy.endpoint);
  functions = await loadFunctions();
  // The samples that read an animal read the first one a fresh stage creates.
  await send('createPet', sampleRequests.createPet.valid);
});
afterAll(async () => {
  await proxy?.close();
  await db?.close();
});

const send = (operationId: OperationId, sample: SampleRequest) => {
  const { method, path, headers, body } = sampleHttpRequest(operationId, sample, { versioned: true });
  return functions.invoke(proxyEvent({ method, path, headers, body }));
};

/** The requests an operation is sent: its samples, and with a status filter where it reads a query. */
const requestsOf = (operationId: OperationId): SampleRequest[] => {
  const { valid, invalid, notFound } = sampleRequests[operationId];
  return [
    valid,
    invalid,
    ...(notFound ? [notFound] : []),
    ...(route(operationId).query ? [{ ...valid, query: { ...valid.query, status: 'sold' } }] : []),
  ];
};

describe.each(routes.map((r) => r.operationId))('%s', (operationId) => {
  test('makes only the DynamoDB calls its route entry names', async () => {
    const declared = route(operationId).dynamodb.flatMap(({ table, index, actions }) =>
      actions.map((action) => `${action} ${table}${index ? `/${index}` : ''}`),
    );
    const seen = new Set<string>();
    for (const sample of requestsOf(operationId)) {
      proxy.reset();
      expect((await send(operationId, sample)).statusCode).toBeLessThan(500);
      for (const { operation, table, index } of proxy.requests)
        seen.add(`${operation} ${table}${index ? `/${index}` : ''}`);
    }
    expect(seen.size, 'no DynamoDB call seen: the samples reached no handler').toBeGreaterThan(0);
    expect([...seen].filter((call) => !declared.includes(call))).toEqual([]);
  });
});
