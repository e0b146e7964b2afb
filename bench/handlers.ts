// `npm run bench:handlers`: each Lambda handler alone, warm, against the floor, the part
// of `npm run bench` that holds on AWS, under production's and staging's Node settings (staging:
// --enable-source-maps, on both sides). Each row takes several generations, a fresh process per
// side each, warmed up, then rounds in turns; a ratio is the median over all the rounds, with the
// range of the generations' own medians; the first tracing of each function also sets its tuned
// floor against a second process of it (A/A), the instrument's own noise. Knobs: HANDLER_PROCESSES
// (5 generations a row), HANDLER_ROUNDS (3 a generation), HANDLER_INVOCATIONS (700 a round),
// HANDLER_WARMUP (6,000 invocations a process), HANDLER_FUNCTIONS (a comma-separated subset),
// HANDLER_TRACING (off,sampled,unsampled), HANDLER_SETTINGS (production,staging), HANDLER_CHECKOUT
// (another checkout's functions in place of this one's, against this one's floor: a directory with
// its dependencies installed, built as this checkout builds; what a change or a piece costs).
import {
  HANDLER_RUN,
  handlersTable,
  handlerTargets,
  measureHandlers,
  variantsOf,
  warmLegend,
} from './support/handler-bench.ts';
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
console.log(`${handlersTable(figures)}\n${warmLegend(run)}`);
printTargets(handlerTargets(figures));
