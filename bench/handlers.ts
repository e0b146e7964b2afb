// `npm run bench:handlers`: each Lambda handler alone, warm, against the floor, the part
// of `npm run bench` that holds on AWS, under production's and staging's Node settings (staging:
// --enable-source-maps, on both sides). Knobs: HANDLER_ROUNDS (7), HANDLER_INVOCATIONS (2,000 a
// round), HANDLER_WARMUP (3,000 invocations), HANDLER_FUNCTIONS (a comma-separated subset), HANDLER_TRACING (off,sampled,unsampled),
// HANDLER_SETTINGS (production,staging).
import { HANDLER_RUN, handlersTable, handlerTargets, measureHandlers, variantsOf } from './support/handler-bench.ts';
import type { Settings, Tracing } from './support/lambda-env.ts';
import { printTargets } from './support/stats.ts';

const list = (name: string, fallback: string) => (process.env[name] ?? fallback).split(',');
const run = {
  ...HANDLER_RUN,
  only: process.env.HANDLER_FUNCTIONS?.split(','),
  settings: list('HANDLER_SETTINGS', 'production,staging') as Settings[],
  tracing: list('HANDLER_TRACING', 'off,sampled,unsampled') as Tracing[],
};
const figures = await measureHandlers(variantsOf(run), { warm: run });
console.log(handlersTable(figures));
printTargets(handlerTargets(figures));
