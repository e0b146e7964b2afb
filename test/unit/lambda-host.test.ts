// The handler benchmarks' host (tools/harness/lambda-host.ts) counts every invocation of a run that
// failed, not the last one alone: under valgrind on a loaded machine some invocations of a measured
// window timed out (503, 504) while the last answered 200, and were counted like the others. A
// handler written here answers 200, 500, throws, 200, 404, 200: the run's last answer is a 200.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { everyInvocationAnswered, startLambdaProcess } from '../../tools/harness/lambda-process.ts';

const HANDLER = `let calls = 0;
export const handler = async () => {
  const answers = [200, 500, 'throw', 200, 404, 200];
  const answer = answers[calls++ % answers.length];
  if (answer === 'throw') throw new Error('the third call fails');
  return { statusCode: answer, body: '{}' };
};
`;

let bundle: string;
beforeAll(() => {
  bundle = mkdtempSync(join(tmpdir(), 'petstore-host-test-'));
  writeFileSync(join(bundle, 'index.mjs'), HANDLER);
});
afterAll(() => rmSync(bundle, { recursive: true, force: true }));

test('a run counts each failed invocation and keeps the first, though its last answer is a 200', async () => {
  const host = await startLambdaProcess({ bundle, functionName: 'getPet', dynamodbEndpoint: 'http://127.0.0.1:9' });
  try {
    const result = await host.invoke({}, 6);
    expect(result.answer).toMatchObject({ statusCode: 200 });
    expect(result.failures).toBe(3);
    expect(result.firstFailure).toMatchObject({ statusCode: 500 });
    expect(() => everyInvocationAnswered(result, 'getPet', 6)).toThrow(
      'getPet: 3 of 6 invocations failed, the first: {"statusCode":500,"body":"{}"}',
    );
    const clean = await host.invoke({}, 1); // the seventh call: a 200
    expect(clean.failures).toBe(0);
    expect(everyInvocationAnswered(clean, 'getPet', 1)).toBe(clean);
  } finally {
    await host.stop();
  }
});
