// `npm run bench:instructions`: each Lambda handler's instructions per warm invocation against the
// floor with the functions' client, counted by valgrind's callgrind (bench/support/instruction-counts.ts):
// the handler benchmark's figure (CPU time) in a unit that does not move with the machine's load.
// Production's settings. Knobs: INSTRUCTIONS_FUNCTIONS (a comma-separated subset; all by default),
// INSTRUCTIONS_TRACING (off by default; off,sampled,unsampled), INSTRUCTIONS_WARMUP (6,000:
// past V8's first tier-up of the SDK's and Node's functions, which lands between invocations ~2,000
// and ~4,000, more of it on the function's side: docs/performance.md),
// INSTRUCTIONS_INVOCATIONS (2,000 counted: a window of 1,000 held one or two of V8's mark-compacts by
// chance, ~80M instructions each, which moved a row by ~4 %), HANDLER_CHECKOUT (another checkout's
// functions in place of this one's, as bench:handlers takes it). About 25 ms an invocation under valgrind,
// the sides at once: ~4 minutes a row.

import { FUNCTION_NAMES } from '../shared/api/routes.ts';
import { countInstructions, instructionsTable, instructionTargets } from './support/instruction-counts.ts';
import { prepareLambdaEnv, type Tracing } from './support/lambda-env.ts';
import { printTargets } from './support/stats.ts';

const list = (name: string) => process.env[name]?.split(',');
const functions = FUNCTION_NAMES.filter((name) => list('INSTRUCTIONS_FUNCTIONS')?.includes(name) ?? true);
const tracings = (list('INSTRUCTIONS_TRACING') ?? ['off']) as Tracing[];
const counts = {
  warmup: Number(process.env.INSTRUCTIONS_WARMUP ?? 6000),
  invocations: Number(process.env.INSTRUCTIONS_INVOCATIONS ?? 2000),
};

const env = await prepareLambdaEnv();
const figures = [];
try {
  for (const name of functions)
    for (const tracing of tracings) {
      console.error(`counting ${name}, tracing ${tracing}, against the floor`);
      figures.push(await countInstructions(env, { function: name, settings: 'production', tracing }, counts));
    }
} finally {
  await env.close();
}
console.log(instructionsTable(figures));
printTargets(instructionTargets(figures));
