// Each Lambda handler alone, warm, in its own process, against the floor (bench/floor/
// handlers.ts), in the environment of lambda-env.ts. The two take turns, round after round; a
// ratio is the median of the rounds' ratios.
import { FUNCTION_NAMES, type FunctionName } from '../../shared/api/routes.ts';
import { type LambdaEnv, prepareLambdaEnv, type Settings, type Tracing } from './lambda-env.ts';
import { atMost, cells, median, percentile, ratio, round, type Target, table } from './stats.ts';

/** CPU per invocation ÷ the floor's, with the stage's tracing on (issue 22); off, the function's own. */
const TARGETS: Record<Tracing, number> = { off: 1.15, sampled: 1.3, unsampled: 1.15 };

/** Rounds of invocations per function; which functions (all by default), under which settings and tracing. */
export const HANDLER_RUN = {
  rounds: Number(process.env.HANDLER_ROUNDS ?? 7),
  invocationsPerRound: Number(process.env.HANDLER_INVOCATIONS ?? 400),
  warmupInvocations: 300,
  only: undefined as readonly string[] | undefined,
  settings: ['production'] as readonly Settings[],
  tracing: ['off'] as readonly Tracing[],
};
type HandlerRun = typeof HANDLER_RUN;

type Variant = { function: FunctionName; settings: Settings; tracing: Tracing };

/** One function against the floor, warm, in alternating rounds. */
const measureHandler = async (env: LambdaEnv, variant: Variant, o: HandlerRun) => {
  const { function: name, settings, tracing } = variant;
  const sides = await Promise.all(
    (['floor', 'function'] as const).map((side) => env.host(name, side, tracing, settings)),
  );
  const segmentsBefore = env.segmentsSent();
  try {
    for (const side of sides) await side.run(o.warmupInvocations);
    /** Per round, the floor's figures and the function's: CPU ms per invocation, p50 and p99 ms. */
    const rounds: Array<Array<Record<'cpu' | 'p50' | 'p99', number>>> = [];
    for (let r = 0; r < o.rounds; r++) {
      rounds.push([]);
      for (const i of r % 2 === 0 ? [0, 1] : [1, 0]) {
        const result = await sides[i]!.run(o.invocationsPerRound);
        const sorted = result.wallMs.sort((a, b) => a - b);
        const cpu = result.cpuMs / o.invocationsPerRound;
        rounds[r]![i] = { cpu, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
      }
    }
    // A UDP datagram may still be on its way: a moment for the last ones, then the check.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const invocations = o.warmupInvocations + o.rounds * o.invocationsPerRound;
    const segments = env.segmentsSent() - segmentsBefore;
    if (tracing === 'sampled' ? segments < invocations : segments > 0)
      throw new Error(`${name} with tracing ${tracing}: ${segments} segments sent for ${invocations} invocations`);
    const ratios = (figure: 'cpu' | 'p50' | 'p99') => rounds.map(([floor, own]) => ratio(own![figure], floor![figure]));
    const cpuMs = (side: number) => round(median(rounds.map((figures) => figures[side]!.cpu)), 3);
    return {
      ...variant,
      /** Medians over rounds, per invocation; a ratio is the median over rounds of function ÷ floor. */
      ...{ cpuMs: cpuMs(1), floorCpuMs: cpuMs(0), cpuRatio: median(ratios('cpu')) },
      ...{ p50Ratio: median(ratios('p50')), p99Ratio: median(ratios('p99')), cpuRatioPerRound: ratios('cpu') },
    };
  } finally {
    await Promise.all(sides.map((side) => side.stop()));
  }
};
export type HandlerFigures = Awaited<ReturnType<typeof measureHandler>>;

/** Every function (or those named in `only`) against the floor, one after another, under each settings and tracing. */
export const measureHandlers = async (run: HandlerRun, log: (message: string) => void = console.error) => {
  const env = await prepareLambdaEnv();
  const figures: HandlerFigures[] = [];
  try {
    for (const name of FUNCTION_NAMES.filter((f) => !run.only || run.only.includes(f)))
      for (const settings of run.settings)
        for (const tracing of run.tracing) {
          log(`measuring ${name} alone against the floor, ${settings} settings, tracing ${tracing}`);
          figures.push(await measureHandler(env, { function: name, settings, tracing }, run));
        }
  } finally {
    await env.close();
  }
  return figures;
};

export const handlersTable = (figures: readonly HandlerFigures[]): string =>
  table([
    'function|settings|tracing|CPU ms/inv|floor|CPU ratio|p50 ratio|p99 ratio|CPU ratio per round'.split('|'),
    ...figures.map((f) => [
      ...cells(f, 'function settings tracing cpuMs floorCpuMs cpuRatio p50Ratio p99Ratio'),
      f.cpuRatioPerRound.join(' '),
    ]),
  ]);

const label = (f: HandlerFigures) => `${f.function} alone, ${f.settings}, tracing ${f.tracing}: CPU/inv. ÷ floor`;
export const handlerTargets = (figures: readonly HandlerFigures[]): Target[] =>
  figures.map((f) => atMost(label(f), f.cpuRatio, TARGETS[f.tracing]));
