// `npm run bench:handlers`: each Lambda handler alone, warm, against the floor, the part
// of `npm run bench` that holds on AWS, under production's and staging's Node settings (staging:
// --enable-source-maps, on both sides). Knobs: HANDLER_ROUNDS (7), HANDLER_INVOCATIONS (400 a
// round), HANDLER_FUNCTIONS (a comma-separated subset), HANDLER_TRACING (off,sampled,unsampled),
// HANDLER_SETTINGS (production,staging).
import { measureHandlers, type Settings } from './support/handler-bench.ts';
import { table, verdict } from './support/stats.ts';

/** CPU per invocation ÷ the floor's, with the stage's tracing on (issue 22); off, the function's own. */
const TARGETS = { off: 1.15, sampled: 1.3, unsampled: 1.15 } as const;

const settings = (process.env.HANDLER_SETTINGS ?? 'production,staging').split(',') as Settings[];
const figures = await measureHandlers(undefined, process.env.HANDLER_FUNCTIONS?.split(','), console.error, settings);
console.log(
  table([
    [
      'function',
      'settings',
      'tracing',
      'CPU ms/inv',
      'floor',
      'CPU ratio',
      'target',
      '',
      'p50 ratio',
      'p99 ratio',
      'CPU ratio per round',
    ],
    ...figures.map((f) => [
      f.function,
      f.settings,
      f.tracing,
      f.cpuMs,
      f.floorCpuMs,
      f.cpuRatio,
      `≤ ${TARGETS[f.tracing]}`,
      verdict(f.cpuRatio <= TARGETS[f.tracing]),
      f.p50Ratio,
      f.p99Ratio,
      f.cpuRatioPerRound.join(' '),
    ]),
  ]),
);
