// `npm run bench:instructions`: each Lambda handler's instructions per warm invocation against the
// floor with the functions' client, counted by valgrind's callgrind (bench/support/instruction-counts.ts):
// the handler benchmark's figure (CPU time) in a unit that does not move with the machine's load.
// Production's settings. Knobs: INSTRUCTIONS_FUNCTIONS (a comma-separated subset; all by default),
// INSTRUCTIONS_TRACING (off by default; off,sampled,unsampled), INSTRUCTIONS_WARMUP (2,000),
// INSTRUCTIONS_INVOCATIONS (1,000 counted). About 25 ms an invocation under valgrind: ~2 minutes a row.

import { FUNCTION_NAMES } from '../shared/api/routes.ts';
import { countInstructions, instructionsTable, instructionTargets } from './support/instruction-counts.ts';
import { prepareLambdaEnv, type Tracing } from './support/lambda-env.ts';
import { printTargets } from './support/stats.ts';

const list = (name: string) => process.env[name]?.split(',');
const functions = FUNCTION_NAMES.filter((name) => list('INSTRUCTIONS_FUNCTIONS')?.includes(name) ?? true);
const tracings = (list('INSTRUCTIONS_TRACING') ?? ['off']) as Tracing[];
const counts = {
  warmup: Number(process.env.INSTRUCTIONS_WARMUP ?? 2000),
  invocations: Number(process.env.INSTRUCTIONS_INVOCATIONS ?? 1000),
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
