// `npm run bench:instructions` end to end, short: getPet and its floor each in a process of its own
// under valgrind's callgrind (on this machine and CI's), warmed up, zeroed, counted. The profile's
// functions must add up to valgrind's own total (callgrind.ts checks it), and the two sides must
// have run: the floor's invocation is the SDK's call, the function's that and our layers.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { countInstructions } from '../../bench/support/instruction-counts.ts';
import { type LambdaEnv, prepareLambdaEnv } from '../../bench/support/lambda-env.ts';

let env: LambdaEnv;
beforeAll(async () => {
  env = await prepareLambdaEnv();
}, 120_000);
afterAll(() => env?.close());

test('getPet and its floor, counted: the function runs more instructions than the floor', async () => {
  const { sides } = await countInstructions(
    env,
    { function: 'getPet', settings: 'production', tracing: 'off' },
    { warmup: 20, invocations: 20 },
  );
  const [floor, own] = sides;
  // A DynamoDB call through the SDK and Node's HTTP is well over 100k instructions.
  expect(floor.program).toBeGreaterThan(100_000);
  expect(own.program).toBeGreaterThan(floor.program);
  for (const side of sides) expect(side.total).toBe(side.program + side.gc + side.compiler);
}, 240_000);
