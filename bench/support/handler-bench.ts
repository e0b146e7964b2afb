// Each Lambda handler alone against the floor (bench/floor/handlers.ts), each side in a process of
// its own, run as Lambda runs it (lambda-env.ts), the sides taking turns round after round (inTurns).
// Warm (bench:handlers, part 2 of `npm run bench`): a generation is a fresh process per side,
// warmed up, then rounds of invocations one after another, as on-demand Lambda runs them; a row
// takes several generations, since one process's luck (when V8 tiers up and collects) moved the
// same code by ~10 %; its ratio is the median of all its rounds' ratios, with the range of the
// generations' own medians. Two floors, one with the SDK's default client and one with the
// functions' client settings (`tuned`), which the targets hold the functions to: a floor with a
// slower client would measure the client's tuning, not our layers. A calibrated row has a second
// tuned floor beside the first, the A/A: what the instrument reads where there is nothing to read.
// Cold (bench:cold): a generation is one round, a fresh process per side, its import and its first
// invocation, against the default floor.
import { FUNCTION_NAMES } from '../../shared/api/routes.ts';
import { type LambdaEnv, prepareLambdaEnv, type Settings, type Tracing, type Variant } from './lambda-env.ts';
import {
  ascending,
  atMost,
  type Generations,
  inTurns,
  type Pooled,
  percentile,
  pooledMedian,
  pooledRatios,
  round,
  type Target,
  table,
} from './stats.ts';

/** CPU per invocation ÷ the floor's, with the stage's tracing on (issue 22); off, the function's own (issue 44). */
const TARGETS: Record<Tracing, number> = { off: 1.1, sampled: 1.3, unsampled: 1.1 };

/**
 * What a warm run takes; which functions (all by default), under which settings and tracing.
 * Defaults, for HANDLER_SETTINGS=production's 12 rows in ~22 minutes on a quiet 2-core machine
 * (docs/performance.md, "Generations and the A/A"): the same code differed by ~10 % from one
 * process to the next where rounds within a process agreed, so the budget goes to processes, 5
 * generations a row, each a fresh process per side. Each warms up for 6,000 invocations, the sides
 * at once (their figures are not taken): V8 (Node 24) takes a function to Turbofan after ~3,000
 * calls, so the SDK's and Node's functions called once or twice an invocation tier up between
 * invocations ~2,000 and ~4,000, the function's larger bundle more of them; a window inside that
 * wave counted one side's first compilations and not the other's (the authorizer's compilers
 * +56-96k instructions an invocation over its floor's after 2,000, none after 6,000: performance.md,
 * "What V8 still compiles after 2,000 invocations"). Then 3 rounds of 700 in turns (~0.9 ms of
 * wall time an invocation, the store's CPU after the function's), 15 rounds a side pooled, an odd
 * count, so that the median is the middle one; one of 700 holds none or one major GC (one every
 * ~1,700 invocations), which a median over 15 rounds of 5 processes takes in its stride, where one
 * process's 7 rounds of 2,000 carried its luck whole.
 */
export const HANDLER_RUN = {
  processes: Number(process.env.HANDLER_PROCESSES ?? 5),
  rounds: Number(process.env.HANDLER_ROUNDS ?? 3),
  invocationsPerRound: Number(process.env.HANDLER_INVOCATIONS ?? 700),
  warmupInvocations: Number(process.env.HANDLER_WARMUP ?? 6000),
  only: undefined as readonly string[] | undefined,
  settings: ['production'] as readonly Settings[],
  tracing: ['off'] as readonly Tracing[],
};
type HandlerRun = typeof HANDLER_RUN;

/**
 * The sides of a warm comparison: the default floor, the floor with the functions' client, the
 * function; calibrated, a second floor with the functions' client beside the first (A/A).
 */
const WARM_SIDES = ['floor', 'tuned floor', 'function'] as const;
const CALIBRATED_SIDES = ['floor', 'tuned floor', 'tuned floor', 'function'] as const;
const COLD_SIDES = ['floor', 'function'] as const;
type Side = (typeof WARM_SIDES)[number];
/** The sides' places: the floor first, the tuned floor second, the second tuned floor third; the function last. */
const [FLOOR, TUNED, TUNED_AGAIN] = [0, 1, 2];

/** A turn's figures, per invocation: CPU, the main thread's CPU, wall time; in ms. */
type Figures = Record<string, number>;
/** A figure of a side: its median, the floor's and side ÷ floor, the tuned floor's and side ÷ it, over all rounds. */
type Figure = { ms: number; floorMs?: number; ratio?: Pooled; tunedFloorMs?: number; tunedRatio?: Pooled };

/** Per figure, side `own`'s median and its ratios to the `floor` and `tuned` sides, if named, pooled over generations. */
const summary = (
  generations: Generations<Figures>,
  own: number,
  { floor, tuned }: { floor?: number; tuned?: number },
): Record<string, Figure> =>
  Object.fromEntries(
    Object.keys(generations[0]![own]![0]!).map((name) => {
      const of = (turn: Figures) => turn[name]!;
      const ms = (side: number) => round(pooledMedian(generations, side, of), 3);
      return [
        name,
        {
          ms: ms(own),
          ...(floor !== undefined && { floorMs: ms(floor), ratio: pooledRatios(generations, own, floor, of) }),
          ...(tuned !== undefined && {
            tunedFloorMs: ms(tuned),
            tunedRatio: pooledRatios(generations, own, tuned, of),
          }),
        },
      ];
    }),
  );

/** A variant; calibrated, its row measures the A/A beside the function. */
type Row = Variant & { calibrate?: boolean };

/** Runs `measure`; the traces sent meanwhile, which must be none untraced, and one per measured invocation sampled. */
const traced = async (env: LambdaEnv, variant: Variant, invocations: number, measure: () => Promise<unknown>) => {
  await env.segmentsSent(); // those sent before, if any
  await measure();
  const segments = await env.segmentsSent();
  if (variant.tracing === 'sampled' ? segments < invocations : segments > 0)
    throw new Error(`${variant.function}, tracing ${variant.tracing}: ${segments} traces for ${invocations} calls`);
  return segments;
};
export type HandlerFigures = Row & { segments: number; figures: Record<string, Figure>; instrument?: true };

/** One generation: a fresh host per side, warmed up together, then its rounds in turns from side `first` on. */
const generation = async (env: LambdaEnv, variant: Variant, sides: readonly Side[], o: HandlerRun, first: number) => {
  const hosts = await Promise.all(sides.map((side) => env.host(variant, side)));
  try {
    await Promise.all(hosts.map((host) => host.run(o.warmupInvocations)));
    const perInvocation = (ms: number) => ms / o.invocationsPerRound;
    return await inTurns(
      sides.length,
      o.rounds,
      async (side): Promise<Figures> => {
        const { cpuMs, mainCpuMs, wallMs } = await hosts[side]!.run(o.invocationsPerRound);
        wallMs.sort(ascending);
        const [cpu, main] = [perInvocation(cpuMs), perInvocation(mainCpuMs)];
        return { cpu, main, p50: percentile(wallMs, 50), p99: percentile(wallMs, 99) };
      },
      first,
    );
  } finally {
    await Promise.all(hosts.map((host) => host.stop()));
  }
};

/** `o.processes` generations of the variant's sides; calibrated, the A/A's row (the instrument) before the function's. */
const warm = async (env: LambdaEnv, variant: Row, o: HandlerRun): Promise<HandlerFigures[]> => {
  const sides = variant.calibrate ? CALIBRATED_SIDES : WARM_SIDES;
  const generations: Generations<Figures> = [];
  const segments = await traced(env, variant, o.processes * o.rounds * o.invocationsPerRound, async () => {
    for (let g = 0; g < o.processes; g++) generations.push(await generation(env, variant, sides, o, g));
  });
  const own = summary(generations, sides.length - 1, { floor: FLOOR, tuned: TUNED });
  const row = { ...variant, segments, figures: own };
  if (!variant.calibrate) return [row];
  return [
    { ...variant, segments: 0, instrument: true, figures: summary(generations, TUNED_AGAIN, { tuned: TUNED }) },
    row,
  ];
};

/** A fresh host per side and generation, one round each: its import, its first invocation, both (total), and their CPU. */
const cold = async (env: LambdaEnv, variant: Variant, runs: number): Promise<HandlerFigures[]> => {
  const generations: Generations<Figures> = [];
  const segments = await traced(env, variant, runs, async () => {
    for (let g = 0; g < runs; g++)
      generations.push(
        await inTurns(
          COLD_SIDES.length,
          1,
          async (side) => {
            const host = await env.host(variant, COLD_SIDES[side]!);
            const { wallMs, cpuMs } = await host.run(1);
            await host.stop();
            const { importMs, importCpuMs } = host.ready;
            return { import: importMs, first: wallMs[0]!, total: importMs + wallMs[0]!, cpu: importCpuMs + cpuMs };
          },
          g,
        ),
      );
  });
  return [{ ...variant, segments, figures: summary(generations, COLD_SIDES.length - 1, { floor: FLOOR }) }];
};

/** Each variant in turn, in the environment prepared once; warm, or cold over `runs` fresh processes a side. */
export const measureHandlers = async (
  variants: Row[],
  mode: { warm: HandlerRun } | { coldRuns: number },
  log: (message: string) => void = console.error,
) => {
  const env = await prepareLambdaEnv();
  const figures: HandlerFigures[] = [];
  try {
    for (const v of variants) {
      log(`measuring ${v.function} against the floor, ${v.settings} settings, tracing ${v.tracing}`);
      const started = performance.now();
      figures.push(...(await ('warm' in mode ? warm(env, v, mode.warm) : cold(env, v, mode.coldRuns))));
      log(`  ${v.function}, ${v.tracing}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
  } finally {
    await env.close();
  }
  return figures;
};

/**
 * Every function (or those named in `only`) under each of the run's settings and tracing; the
 * first tracing of each function and settings calibrated (the A/A beside it).
 */
export const variantsOf = (run: HandlerRun): Row[] =>
  FUNCTION_NAMES.filter((f) => !run.only || run.only.includes(f)).flatMap((name) =>
    run.settings.flatMap((settings) =>
      run.tracing.map((tracing, i) => ({ function: name, settings, tracing, calibrate: i === 0 })),
    ),
  );

const WARM_COLUMNS = [
  'cpu ms',
  'cpu floorMs',
  'cpu ratio',
  'cpu tunedFloorMs',
  'cpu tunedRatio',
  'main tunedRatio',
  'p50 tunedRatio',
  'p99 tunedRatio',
];
type Column = keyof Figure;
/**
 * A row per variant, the A/A's rows (`A/A`) too; `columns` name a figure and what of it: `cpu ms`,
 * `cpu floorMs` and `cpu ratio` (against the default floor), `cpu tunedFloorMs` and `cpu
 * tunedRatio` (against the functions' client); `main` is the main thread's CPU alone.
 */
export const handlersTable = (figures: readonly HandlerFigures[], columns = WARM_COLUMNS): string =>
  table([
    ['function', 'settings', 'tracing', ...columns.map((c) => c.replace('tunedFloorMs', 'tuned floorMs'))],
    ...figures.map((f) => [
      ...[f.function, f.settings, f.instrument ? `${f.tracing} A/A` : f.tracing],
      ...columns.map((column) => {
        const [figure, what] = column.split(' ') as [string, Column];
        return f.figures[figure]?.[what] ?? '';
      }),
    ]),
  ]);

/** What a warm table's rows and ranges are. */
export const warmLegend = (o: HandlerRun) =>
  `CPU (and the main thread's alone) and wall time per invocation; each ratio the median of the rounds' ratios, ` +
  `${o.rounds} rounds of ${o.invocationsPerRound} in each of ${o.processes} processes a side (after ` +
  `${o.warmupInvocations} to warm up), and (range) the processes' own medians. A/A: the tuned floor's ` +
  "second process ÷ its first, measured as a function is: the instrument's own noise, not a target.";

const label = (f: HandlerFigures) =>
  `${f.function} alone, ${f.settings}, tracing ${f.tracing}: CPU/inv. ÷ floor with the functions' client`;
/** Warm: against the floor with the functions' client settings; the A/A is none. */
export const handlerTargets = (figures: readonly HandlerFigures[]): Target[] =>
  figures
    .filter((f) => !f.instrument)
    .map((f) => atMost(label(f), (f.figures.cpu!.tunedRatio ?? f.figures.cpu!.ratio)!.median, TARGETS[f.tracing]));
