// A line written outside an invocation's context (a listing's best-effort re-read that failed)
// names the container's version as Lambda gives it: the reserved variable
// AWS_LAMBDA_FUNCTION_VERSION, "The version of the function being executed"
// (https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html#configuration-envvars-runtime),
// and the commit the stack gives the function (PETSTORE_COMMIT); the local stage sets no version
// and its functions run `$LATEST`.
import { afterEach, expect, test, vi } from 'vitest';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

const load = async () => (await import('../../shared/observability/telemetry.ts')).containerCodeVersion;

test("deployed: Lambda's version of the container, and the commit", async () => {
  vi.stubEnv('AWS_LAMBDA_FUNCTION_VERSION', '17');
  vi.stubEnv('PETSTORE_COMMIT', 'abc1234');
  expect((await load())()).toEqual({ executedVersion: '17', commit: 'abc1234' });
});

test('local: no version set, so $LATEST, as the local functions say', async () => {
  vi.stubEnv('AWS_LAMBDA_FUNCTION_VERSION', undefined);
  vi.stubEnv('PETSTORE_COMMIT', 'abc1234');
  expect((await load())()).toEqual({ executedVersion: '$LATEST', commit: 'abc1234' });
});
