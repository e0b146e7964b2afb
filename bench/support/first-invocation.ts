// What a cold start costs a Lambda, import and first invocation, for each function
// beside the floor (bench/floor/handlers.ts): each a fresh process that imports its
// bundle and answers one event from the embedded DynamoDB. Sides alternate run by run.
// Each function runs the bundle `cdk synth` made (cdk.out) with what its template turns on:
// with POWERTOOLS_TRACE_ENABLED true, as Lambda runs a function with active tracing, its first
// invocation sampled, its segments sent to the bench's stand-in for the X-Ray daemon. The
// floor traces nothing. Under production's Node settings and staging's (--enable-source-maps,
// on both sides).
import type { DeployedBundle } from './bundles.ts';
import { type FunctionName, prepareHandlerBench, type Settings, startHost } from './handler-bench.ts';
import { median, round } from './stats.ts';

interface Figures {
  importMs: number;
  firstMs: number;
  totalMs: number;
  floorTotalMs: number;
  /** Median of import + first invocation ÷ the floor's, run by run. */
  totalRatio: number;
  /** The run-by-run ratios' lowest and highest. */
  ratioRange: [number, number];
  /** CPU time of import + first invocation, median, and its ratio to the floor's (median run by run). */
  cpuMs: number;
  cpuRatio: number;
}

export interface FirstInvocationFigures extends Figures {
  function: FunctionName;
  /** Whether the function traced (its template's tracing switch): its first invocation sampled. */
  tracing: boolean;
  floorImportMs: number;
  floorFirstMs: number;
  /** X-Ray documents the function's runs sent, all runs together (0 with tracing off). */
  xraySegments: number;
  /** The same, under staging's settings (source maps on, both sides). */
  staging: Figures;
}

type Side = `${'floor' | 'function'} ${Settings}`;
const SIDES: readonly Side[] = ['floor production', 'function production', 'floor staging', 'function staging'];

interface Sample {
  importMs: number;
  firstMs: number;
  cpuMs: number;
}

/**
 * `deployed`: cdk.out's bundles (bundles.ts); each function found there runs from its file with
 * its template's tracing switch. Functions not found run the bench's own build, tracing off.
 */
export const measureFirstInvocations = async (
  runs: number,
  log: (message: string) => void,
  deployed: readonly DeployedBundle[] = [],
): Promise<FirstInvocationFigures[]> => {
  const env = await prepareHandlerBench();
  try {
    const names = Object.keys(env.bundles) as FunctionName[];
    const bundles = new Map(
      names.map((name) => {
        const found = deployed.find((d) => d.name === name);
        const tracing = found?.environment.POWERTOOLS_TRACE_ENABLED === 'true';
        return [name, { tracing, function: found?.file ?? env.bundles[name].function, floor: env.bundles[name].floor }];
      }),
    );
    const samples = new Map(names.map((name) => [name, new Map<Side, Sample[]>()]));
    const segments = new Map<FunctionName, number>();
    log(
      `measuring import + first invocation: ${names.length} functions and their floors × 2 settings × ${runs} fresh processes…`,
    );
    for (let run = 0; run < runs; run++) {
      for (const name of names) {
        const bundle = bundles.get(name)!;
        // A different order each run, so that a slow spell of the machine lands on all alike.
        const sides = SIDES.map((_, i) => SIDES[(i + run) % SIDES.length]!);
        for (const side of sides) {
          const [kind, settings] = side.split(' ') as ['floor' | 'function', Settings];
          const traced = bundle.tracing && kind === 'function';
          const sentBefore = env.segmentsSent();
          const host = await startHost(
            bundle[kind],
            kind === 'floor' ? name : 'handler',
            env.events[name],
            env.environment(name, traced ? 'sampled' : 'off'),
            settings,
          );
          const result = await host.call<Sample & { last: { statusCode?: number; error?: string } }>({ type: 'first' });
          await host.stop();
          if (result.last.error !== undefined || (result.last.statusCode ?? 0) >= 400)
            throw new Error(`${name} (${side}) failed its first invocation: ${JSON.stringify(result.last)}`);
          const list = samples.get(name)!;
          const { importMs, firstMs, cpuMs } = result;
          list.set(side, [...(list.get(side) ?? []), { importMs, firstMs, cpuMs }]);
          if (traced) segments.set(name, (segments.get(name) ?? 0) + env.segmentsSent() - sentBefore);
        }
      }
    }
    return names.map((name) => {
      const measured = samples.get(name)!;
      const total = (s: Sample) => s.importMs + s.firstMs;
      const m = (values: number[]) => round(median(values), 1);
      const figures = (settings: Settings): Figures => {
        const own = measured.get(`function ${settings}`)!;
        const floor = measured.get(`floor ${settings}`)!;
        const ratios = own.map((s, i) => total(s) / total(floor[i]!));
        return {
          importMs: m(own.map((s) => s.importMs)),
          firstMs: m(own.map((s) => s.firstMs)),
          totalMs: m(own.map(total)),
          floorTotalMs: m(floor.map(total)),
          totalRatio: round(median(ratios), 2),
          ratioRange: [round(Math.min(...ratios), 2), round(Math.max(...ratios), 2)],
          cpuMs: m(own.map((s) => s.cpuMs)),
          cpuRatio: round(median(own.map((s, i) => s.cpuMs / floor[i]!.cpuMs)), 2),
        };
      };
      const floor = measured.get('floor production')!;
      return {
        function: name,
        tracing: bundles.get(name)!.tracing,
        ...figures('production'),
        floorImportMs: m(floor.map((s) => s.importMs)),
        floorFirstMs: m(floor.map((s) => s.firstMs)),
        xraySegments: segments.get(name) ?? 0,
        staging: figures('staging'),
      };
    });
  } finally {
    await env.close();
  }
};
