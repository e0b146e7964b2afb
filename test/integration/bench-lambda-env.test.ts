// `npm run bench`'s part 2 and `npm run bench:handlers` run each function, and its floor, in a
// Lambda-like process against the embedded DynamoDB (bench/support/lambda-env.ts). Nothing else
// runs that set-up, so a change to how the functions reach DynamoDB (its credential, say) broke
// it unseen once; here every function and its floor answer one invocation with it.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type LambdaEnv, prepareLambdaEnv } from '../../bench/support/lambda-env.ts';
import { FUNCTION_NAMES } from '../../shared/api/routes.ts';

let env: LambdaEnv;
beforeAll(async () => {
  env = await prepareLambdaEnv();
}, 120_000);
afterAll(() => env?.close());

test.each(FUNCTION_NAMES)(
  '%s and its floor answer an invocation in the bench set-up',
  async (name) => {
    for (const side of ['floor', 'function'] as const) {
      const host = await env.host({ function: name, settings: 'production', tracing: 'off' }, side);
      try {
        const result = await host.run(1);
        expect(result.answer, `${side} ${name}`).toBeDefined();
      } finally {
        await host.stop();
      }
    }
  },
  60_000,
);
