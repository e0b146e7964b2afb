// A fault's line goes through Powertools Logger, made only when the first fault is written
// (shared/observability/powertools.ts): it must still say what a Logger made at init would have,
// the same level handling and the same cold_start as the invocation's summary line.
import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { REQUEST_SUMMARY_MESSAGE } from '../../shared/observability/log-fields.ts';
import { powertoolsEnvironment } from '../../shared/observability/metric-names.ts';
import { loggerLevel } from '../../shared/observability/powertools.ts';
import { FAULT_TEST_TABLES, type FaultyDynamoDB, startFaultyDynamoDB } from '../support/faulty-dynamodb.ts';
import { loadFunctions, proxyEvent, setFunctionEnv } from '../support/in-process.ts';
import { captureFunctionOutput } from '../support/observability.ts';

describe('the level the summary line is written at', () => {
  afterEach(() => vi.unstubAllEnvs());

  it.each([
    [{}],
    [{ POWERTOOLS_LOG_LEVEL: 'WARN' }],
    [{ POWERTOOLS_LOG_LEVEL: 'DEBUG', LOG_LEVEL: 'ERROR' }],
    [{ LOG_LEVEL: 'ERROR' }],
    [{ POWERTOOLS_LOG_LEVEL: 'warn' }],
    [{ POWERTOOLS_LOG_LEVEL: 'NOISY' }],
    [{ POWERTOOLS_LOG_LEVEL: 'INFO', AWS_LAMBDA_LOG_LEVEL: 'WARN' }],
    [{ POWERTOOLS_LOG_LEVEL: 'ERROR', AWS_LAMBDA_LOG_LEVEL: 'DEBUG' }],
    [{ AWS_LAMBDA_LOG_LEVEL: 'FATAL' }],
    [{ POWERTOOLS_LOG_LEVEL: 'SILENT' }],
  ])('is the one Powertools Logger resolves from %o', (env: Record<string, string>) => {
    for (const name of ['POWERTOOLS_LOG_LEVEL', 'LOG_LEVEL', 'AWS_LAMBDA_LOG_LEVEL']) vi.stubEnv(name, env[name] ?? '');
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true); // Powertools warns of a level ALC overrides.
    expect(loggerLevel()).toBe(new Logger().getLevelName());
    vi.restoreAllMocks();
  });
});

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

  it('false when the first fault comes after the first invocation (the Logger is made then)', async () => {
    const functions = await freshContainer();
    // A 400 writes its summary only: no Logger is made.
    expect((await functions.invoke(proxyEvent({ path: '/v1/pets/0', requestId: 'req-first' }))).statusCode).toBe(400);
    expect((await functions.invoke(proxyEvent({ path: '/v1/pets/1', requestId: 'req-later' }))).statusCode).toBe(503);
    expect(coldStarts('req-first')).toEqual([['summary', true]]);
    expect(coldStarts('req-later')).toEqual([
      ['ERROR', false],
      ['summary', false],
    ]);
  });
});
