// Each Lambda handler alone against the floor (bench/floor/handlers.ts), each side in a process of
// its own, run as Lambda runs it (lambda-env.ts), the sides taking turns round after round (inTurns); a
// ratio is the median of the rounds' ratios, with their range. Warm (bench:handlers, part 2 of
// `npm run bench`): a process per side, warmed up, then a round is invocations one after another,
// as on-demand Lambda runs them; two floors, one with the SDK's default client and one with the
// functions' client settings (`tuned`), which the targets hold the functions to: a floor with a
// slower client would measure the client's tuning, not our layers. Cold (bench:cold): a round is a
// fresh process per side, its import and its first invocation, against the default floor.
import { FUNCTION_NAMES } from '../../shared/api/routes.ts';
import { type LambdaEnv, prepareLambdaEnv, type Settings, type Tracing, type Variant } from './lambda-env.ts';
import { ascending, atMost, inTurns, median, percentile, ratios, round, type Target, table } from './stats.ts';

/** CPU per invocation ÷ the floor's, with the stage's tracing on (issue 22); off, the function's own (issue 44). */
const TARGETS: Record<Tracing, number> = { off: 1.1, sampled: 1.3, unsampled: 1.1 };

/**
 * Rounds of invocations per function; which functions (all by default), under which settings and
 * tracing. Warm means V8 has settled: 3,000 invocations to warm up, past its tier-up (the bundle's
 * functions compiled ~470 times in the first 1,000 invocations, ~30 times per 1,000 after 3,000);
 * rounds of 2,000, long enough to hold a major GC or two (one every ~1,600 invocations), where
 * rounds of 400 held none or one and their ratios ranged 0.85–1.43 for the same code
 * (docs/performance.md, "Per invocation, warm").
 */
export const HANDLER_RUN = {
  rounds: Number(process.env.HANDLER_ROUNDS ?? 7),
  invocationsPerRound: Number(process.env.HANDLER_INVOCATIONS ?? 2000),
  warmupInvocations: Number(process.env.HANDLER_WARMUP ?? 3000),
  only: undefined as readonly string[] | undefined,
  settings: ['production'] as readonly Settings[],
  tracing: ['off'] as readonly Tracing[],
};
type HandlerRun = typeof HANDLER_RUN;

/** The sides of a warm comparison: the default floor, the floor with the functions' client, the function. */
const WARM_SIDES = ['floor', 'tuned floor', 'function'] as const;
const COLD_SIDES = ['floor', 'function'] as const;

/** A round's turn of one side (its index in the sides): its figures, CPU and wall time in ms. */
type Turn = (side: number) => Promise<Record<string, number>>;
type Turns = Array<Record<string, number>>;
type Spread = ReturnType<typeof ratios>;
/** A figure of the function: its median, the floor's, function ÷ floor; with the tuned floor, the same against it. */
type Figure = { ms: number; floorMs: number; ratio: Spread; tunedFloorMs?: number; tunedRatio?: Spread };

/**
 * Per figure, the function's median, the floor's, function ÷ floor over the rounds, and with a tuned
 * floor (three sides) its median and function ÷ it: the function is the last side, the floor the first.
 */
const summary = (sides: Turns[]): Record<string, Figure> => {
  const [floor, tuned] = sides;
  const own = sides.at(-1)!;
  return Object.fromEntries(
    Object.keys(own[0]!).map((f) => {
      const ms = (turns: Turns) => round(median(turns.map((t) => t[f]!)), 3);
      const against = { ms: ms(own), floorMs: ms(floor!), ratio: ratios(own, floor!, (t) => t[f]!) };
      if (sides.length < 3) return [f, against];
      return [f, { ...against, tunedFloorMs: ms(tuned!), tunedRatio: ratios(own, tuned!, (t) => t[f]!) }];
    }),
  );
};

/** `variant` against the floor in `rounds` of `turn`, in which the function makes `invocations` invocations. */
const againstFloor = async (
  env: LambdaEnv,
  variant: Variant,
  [rounds, sides]: [number, number],
  invocations: number,
  turn: Turn,
) => {
  await env.segmentsSent(); // those sent before, if any
  const figures = summary(await inTurns(sides, rounds, turn));
  const segments = await env.segmentsSent();
  if (variant.tracing === 'sampled' ? segments < invocations : segments > 0)
    throw new Error(`${variant.function}, tracing ${variant.tracing}: ${segments} traces for ${invocations} calls`);
  return { ...variant, segments, figures };
};
export type HandlerFigures = Awaited<ReturnType<typeof againstFloor>>;

/** One host per side, warmed up; a turn runs `invocationsPerRound`. */
const warm = async (env: LambdaEnv, variant: Variant, o: HandlerRun) => {
  const hosts = await Promise.all(WARM_SIDES.map((side) => env.host(variant, side)));
  try {
    for (const host of hosts) await host.run(o.warmupInvocations);
    const run: [number, number] = [o.rounds, WARM_SIDES.length];
    return await againstFloor(env, variant, run, o.rounds * o.invocationsPerRound, async (side) => {
      const { cpuMs, wallMs } = await hosts[side]!.run(o.invocationsPerRound);
      wallMs.sort(ascending);
      return { cpu: cpuMs / o.invocationsPerRound, p50: percentile(wallMs, 50), p99: percentile(wallMs, 99) };
    });
  } finally {
    await Promise.all(hosts.map((host) => host.stop()));
  }
};

/** A fresh host per side and round: its import, its first invocation, both (total), and their CPU. */
const cold = (env: LambdaEnv, variant: Variant, runs: number) =>
  againstFloor(env, variant, [runs, COLD_SIDES.length], runs, async (side) => {
    const host = await env.host(variant, COLD_SIDES[side]!);
    const { wallMs, cpuMs } = await host.run(1);
    await host.stop();
    const { importMs, importCpuMs } = host.ready;
    return { import: importMs, first: wallMs[0]!, total: importMs + wallMs[0]!, cpu: importCpuMs + cpuMs };
  });

/** Each variant in turn, in the environment prepared once; warm, or cold over `runs` fresh processes a side. */
export const measureHandlers = async (
  variants: Variant[],
  mode: { warm: HandlerRun } | { coldRuns: number },
  log: (message: string) => void = console.error,
) => {
  const env = await prepareLambdaEnv();
  const figures: HandlerFigures[] = [];
  try {
    for (const v of variants) {
      log(`measuring ${v.function} against the floor, ${v.settings} settings, tracing ${v.tracing}`);
      figures.push(await ('warm' in mode ? warm(env, v, mode.warm) : cold(env, v, mode.coldRuns)));
    }
  } finally {
    await env.close();
  }
  return figures;
};

/** Every function (or those named in `only`) under each of the run's settings and tracing. */
export const variantsOf = (run: HandlerRun): Variant[] =>
  FUNCTION_NAMES.filter((f) => !run.only || run.only.includes(f)).flatMap((name) =>
    run.settings.flatMap((settings) => run.tracing.map((tracing) => ({ function: name, settings, tracing }))),
  );

const WARM_COLUMNS = [
  'cpu ms',
  'cpu floorMs',
  'cpu ratio',
  'cpu tunedFloorMs',
  'cpu tunedRatio',
  'p50 tunedRatio',
  'p99 tunedRatio',
];
type Column = 'ms' | 'floorMs' | 'ratio' | 'tunedFloorMs' | 'tunedRatio';
/**
 * A row per variant; `columns` name a figure and what of it: `cpu ms`, `cpu floorMs` and `cpu ratio`
 * (against the default floor), `cpu tunedFloorMs` and `cpu tunedRatio` (against the functions' client).
 */
export const handlersTable = (figures: readonly HandlerFigures[], columns = WARM_COLUMNS): string =>
  table([
    ['function', 'settings', 'tracing', ...columns.map((c) => c.replace('tunedFloorMs', 'tuned floorMs'))],
    ...figures.map((f) => [
      ...[f.function, f.settings, f.tracing],
      ...columns.map((column) => f.figures[column.split(' ')[0]!]![column.split(' ')[1] as Column] ?? ''),
    ]),
  ]);

const label = (f: HandlerFigures) =>
  `${f.function} alone, ${f.settings}, tracing ${f.tracing}: CPU/inv. ÷ floor with the functions' client`;
/** Warm: against the floor with the functions' client settings. */
export const handlerTargets = (figures: readonly HandlerFigures[]): Target[] =>
  figures.map((f) => atMost(label(f), (f.figures.cpu!.tunedRatio ?? f.figures.cpu!.ratio).median, TARGETS[f.tracing]));
