// `npm run bench:handlers` (and `npm run bench`'s part 2) runs each function, and its floor, in a
// Lambda-like process against the embedded DynamoDB (bench/support/lambda-env.ts). Nothing else
// runs that set-up, and a change to how the functions reach DynamoDB (its credential) once broke
// it unseen: here it runs as npm runs it, every function and floor for two invocations after two
// to warm up, in two generations of processes (the A/A's second floor in them), and must end
// without a failed invocation, the A/A's row printed for every function. No benchmark code is
// imported (test/unit/architecture.test.ts).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, test } from 'vitest';
import { FUNCTION_NAMES } from '../../shared/api/routes.ts';
import { withCheckoutCopy } from '../support/checkout-copy.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const { scripts } = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};

test('bench:handlers runs every function and its floor in its set-up without a failed invocation', () => {
  const [, ...words] = scripts['bench:handlers']!.split(' '); // `node …`: this Node, as npm's would be
  const result = spawnSync(process.execPath, words, {
    cwd: ROOT,
    encoding: 'utf8',
    // Per generation, four processes a function: the floor, the floor with the functions' client
    // twice (the A/A), the function.
    timeout: 135_000,
    env: {
      ...process.env,
      HANDLER_PROCESSES: '2',
      HANDLER_WARMUP: '2',
      HANDLER_ROUNDS: '1',
      HANDLER_INVOCATIONS: '2',
      HANDLER_TRACING: 'off',
      HANDLER_SETTINGS: 'production',
    },
  });
  expect(result.status, result.stderr + result.stdout.slice(-2000)).toBe(0);
  for (const name of FUNCTION_NAMES) {
    expect(result.stdout).toMatch(new RegExp(`${name} alone, production, tracing off: CPU/inv\\. ÷ floor`));
    expect(result.stdout).toMatch(new RegExp(`^${name} +production +off A/A `, 'm'));
  }
}, 180_000);

// HANDLER_CHECKOUT measures another checkout's functions in place of this one's: a copy of this
// checkout whose listPets answers 418 must fail the run on that answer, which only its code gives.
test("HANDLER_CHECKOUT builds the other checkout's functions and runs its listPets in place of this one's", () => {
  const answers418 = "export const handler = async () => ({ statusCode: 418, body: '' });\n";
  const [, ...words] = scripts['bench:handlers']!.split(' ');
  const result = withCheckoutCopy({ 'functions/list-pets.ts': answers418 }, (checkout) =>
    spawnSync(process.execPath, words, {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 100_000,
      env: {
        ...process.env,
        HANDLER_CHECKOUT: checkout,
        HANDLER_FUNCTIONS: 'listPets',
        HANDLER_PROCESSES: '1',
        HANDLER_WARMUP: '2',
        HANDLER_ROUNDS: '1',
        HANDLER_INVOCATIONS: '2',
        HANDLER_TRACING: 'off',
        HANDLER_SETTINGS: 'production',
      },
    }),
  );
  expect(result.status).not.toBe(0);
  expect(result.stderr).toMatch(/function listPets: 2 of 2 invocations failed, the first: \{"statusCode":418/);
}, 120_000);
