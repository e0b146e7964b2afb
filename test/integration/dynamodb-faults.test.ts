// A DynamoDB that throttles, through the real function chains in this process: what
// only a fault shows on-call. The 503 leaves its summary line, the error with its stack
// and its cause, and the DynamoDBFaults metric; the authorizer's fault its own lines.
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { OperationId } from '../../shared/api/routes.ts';
import {
  AUTHORIZER_SUMMARY_MESSAGE,
  LOG_FIELDS,
  REQUEST_SUMMARY_MESSAGE,
} from '../../shared/observability/log-fields.ts';
import {
  METRICS,
  metricsNamespace,
  powertoolsEnvironment,
  SERVICE_NAME,
} from '../../shared/observability/metric-names.ts';
import { FAULT_TEST_TABLES, type FaultyDynamoDB, startFaultyDynamoDB } from '../support/faulty-dynamodb.ts';
import {
  type Functions,
  jsonPost,
  loadFunctions,
  proxyEvent,
  setFunctionEnv,
  tokenEvent,
} from '../support/in-process.ts';
import { captureFunctionOutput, type EmfLine, emfLinesOf, fieldOf } from '../support/observability.ts';

const STAGE = 'faults';
let dynamodb: FaultyDynamoDB;
let functions: Functions;
let output: ReturnType<typeof captureFunctionOutput>;

beforeAll(async () => {
  dynamodb = await startFaultyDynamoDB('throttling');
  setFunctionEnv(dynamodb.endpoint, FAULT_TEST_TABLES);
  // As the stack sets them; EMF on, so that the metrics can be read back.
  Object.assign(process.env, powertoolsEnvironment(STAGE, 'INFO'), { POWERTOOLS_METRICS_DISABLED: 'false' });
  functions = await loadFunctions();
  output = captureFunctionOutput();
});
afterEach(() => {
  output.clear();
});
afterAll(async () => {
  vi.restoreAllMocks();
  await dynamodb?.close();
});

const operations: [OperationId, () => APIGatewayProxyEvent][] = [
  ['listPets', () => proxyEvent({ path: '/v1/pets', requestId: 'req-listPets' })],
  ['createPet', () => jsonPost(JSON.stringify({ name: 'Rex', categoryId: 3 }), {}, 'req-createPet')],
  ['getPet', () => proxyEvent({ path: '/v1/pets/1', requestId: 'req-getPet' })],
];

describe('DynamoDB throttling', () => {
  it.each(operations)(
    '%s: a 503 with its summary line, its error and stack, and DynamoDBFaults',
    async (operation, event) => {
      const result = await functions.invoke(event());
      expect(result.statusCode).toBe(503);
      const lines = output.lines();

      const summary = lines.filter((line) => line.message === REQUEST_SUMMARY_MESSAGE);
      expect(summary).toHaveLength(1);
      expect(summary[0]).toMatchObject({
        operation,
        status: 503,
        errorCode: 'SERVICE_UNAVAILABLE',
        requestId: `req-${operation}`,
      });

      const errors = lines.filter((line) => line.level === 'ERROR');
      expect(errors).toHaveLength(1);
      expect(errors[0]!.requestId).toBe(`req-${operation}`);
      expect(fieldOf(errors[0]!, LOG_FIELDS.errorStack)).toMatch(/\n\s+at /);
      // The cause says what DynamoDB answered: in the log, never in the body.
      expect(fieldOf(errors[0]!, 'error.cause.name')).toBe('ProvisionedThroughputExceededException');
      expect(result.body).not.toContain('ProvisionedThroughputExceededException');

      const faults = emfLinesOf(lines.filter((line) => line._aws) as EmfLine[], METRICS.dynamodbFaults);
      expect(faults).toHaveLength(1);
      expect(faults[0]!.namespace).toBe(metricsNamespace(STAGE));
      expect(faults[0]!.dimensions).toEqual([['service', ...METRICS.dynamodbFaults.dimensions]]);
      expect(faults[0]!.line).toMatchObject({ service: SERVICE_NAME, operation, DynamoDBFaults: 1 });
      const requests = emfLinesOf(lines.filter((line) => line._aws) as EmfLine[], METRICS.requests);
      expect(requests.map(({ line }) => line.statusClass)).toEqual(['5xx']);
    },
  );

  it('the authorizer: outcome "error" with its stack, and no AuthFailures (the key was not refused)', async () => {
    await expect(functions.authorize(tokenEvent(`Bearer pet_${'a'.repeat(43)}`))).rejects.not.toThrow('Unauthorized');
    const lines = output.lines();
    const summary = lines.filter((line) => line.message === AUTHORIZER_SUMMARY_MESSAGE);
    expect(summary).toHaveLength(1);
    expect(summary[0]).toMatchObject({ outcome: 'error' });
    expect(summary[0]!.reason).toBeUndefined();
    const errors = lines.filter((line) => line.level === 'ERROR');
    expect(errors).toHaveLength(1);
    expect(fieldOf(errors[0]!, LOG_FIELDS.errorStack)).toMatch(/\n\s+at /);
    expect(emfLinesOf(lines.filter((line) => line._aws) as EmfLine[], METRICS.authFailures)).toEqual([]);
    expect(output.text()).not.toContain('a'.repeat(43));
  });
});

// The summary line is written without Powertools' per-line pipeline (shared/observability/
// summary-line.ts): it must still carry every field Powertools puts on a line of the invocation.
describe('the summary line and Powertools’ lines of one invocation', () => {
  const POWERTOOLS_OWN = ['level', 'message', 'timestamp', 'error'];

  it('the summary carries each field of the invocation’s ERROR line, with the same value', async () => {
    await functions.invoke(proxyEvent({ path: '/v1/pets/1', requestId: 'req-parity' }));
    const lines = output.lines();
    const summary = lines.find((line) => line.message === REQUEST_SUMMARY_MESSAGE)!;
    const error = lines.find((line) => line.level === 'ERROR')!;
    const shared = Object.keys(error).filter((key) => !POWERTOOLS_OWN.includes(key));
    expect(shared).toEqual(expect.arrayContaining(['service', 'cold_start', 'function_name', 'function_request_id']));
    for (const key of shared) expect([key, summary[key]]).toEqual([key, error[key]]);
    expect(summary).toMatchObject({ level: 'INFO' });
    expect(Date.parse(summary.timestamp as string)).toBeGreaterThanOrEqual(Date.parse(error.timestamp as string));
  });

  it('overlapping invocations of two functions in one process (the local server): each line names its own', async () => {
    // Throttled, each invocation retries for ~150 ms: the second starts while the first runs.
    const getPet = functions.invoke(proxyEvent({ path: '/v1/pets/1', requestId: 'req-first' }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const authorizer = functions.authorize(tokenEvent(`Bearer pet_${'b'.repeat(43)}`)).catch(() => undefined);
    await Promise.all([getPet, authorizer]);
    const summaries = output
      .lines()
      .filter((line) => line.message === REQUEST_SUMMARY_MESSAGE || line.message === AUTHORIZER_SUMMARY_MESSAGE);
    expect(summaries.map((line) => [line.message, line.function_name])).toEqual(
      expect.arrayContaining([
        [REQUEST_SUMMARY_MESSAGE, 'petstore-test-getPet'],
        [AUTHORIZER_SUMMARY_MESSAGE, 'petstore-test-authorizer'],
      ]),
    );
    expect(summaries).toHaveLength(2);
  });
});
