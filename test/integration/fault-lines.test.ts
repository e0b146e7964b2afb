// A fault's line goes through Powertools Logger, given the invocation's context only when the
// first fault is written (shared/observability/powertools.ts): it must still say the same
// cold_start as the invocation's summary line.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { REQUEST_SUMMARY_MESSAGE } from '../../shared/observability/log-fields.ts';
import { powertoolsEnvironment } from '../../shared/observability/metric-names.ts';
import { FAULT_TEST_TABLES, type FaultyDynamoDB, startFaultyDynamoDB } from '../support/faulty-dynamodb.ts';
import { loadFunctions, proxyEvent, setFunctionEnv } from '../support/in-process.ts';
import { captureFunctionOutput } from '../support/observability.ts';

describe('the cold_start of a fault’s line', () => {
  let dynamodb: FaultyDynamoDB;
  let output: ReturnType<typeof captureFunctionOutput>;

  beforeAll(async () => {
    dynamodb = await startFaultyDynamoDB('throttling');
    setFunctionEnv(dynamodb.endpoint, FAULT_TEST_TABLES);
    Object.assign(process.env, powertoolsEnvironment('faults', 'INFO'));
    output = captureFunctionOutput();
  });
  afterEach(() => {
    output.clear();
    vi.unstubAllEnvs();
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await dynamodb?.close();
  });

  /** Each scenario a fresh container: its modules imported anew, on-demand initialization. */
  const freshContainer = async () => {
    vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', 'on-demand');
    vi.resetModules();
    return loadFunctions();
  };
  const coldStarts = (requestId: string) =>
    output
      .lines()
      .filter((line) => line.requestId === requestId)
      .map((line) => [line.message === REQUEST_SUMMARY_MESSAGE ? 'summary' : line.level, line.cold_start]);

  it('true on the container’s first invocation, on both lines', async () => {
    const functions = await freshContainer();
    expect((await functions.invoke(proxyEvent({ path: '/v1/pets/1', requestId: 'req-cold' }))).statusCode).toBe(503);
    expect(coldStarts('req-cold')).toEqual([
      ['ERROR', true],
      ['summary', true],
    ]);
  });

  it('false when the first fault comes after the first invocation (the Logger is given a context then)', async () => {
    const functions = await freshContainer();
    // A 400 writes its summary only: the Logger is given no context.
    expect((await functions.invoke(proxyEvent({ path: '/v1/pets/0', requestId: 'req-first' }))).statusCode).toBe(400);
    expect((await functions.invoke(proxyEvent({ path: '/v1/pets/1', requestId: 'req-later' }))).statusCode).toBe(503);
    expect(coldStarts('req-first')).toEqual([['summary', true]]);
    expect(coldStarts('req-later')).toEqual([
      ['ERROR', false],
      ['summary', false],
    ]);
  });
});
