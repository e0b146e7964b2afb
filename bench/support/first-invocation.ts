// What a cold start costs a Lambda, import and first invocation, for each function
// beside the floor (bench/floor/handlers.ts): each a fresh process that imports its
// bundle and answers one event from the embedded DynamoDB. Sides alternate run by run.
// Each function runs the bundle `cdk synth` made (cdk.out) with what its template turns on:
// with POWERTOOLS_TRACE_ENABLED true, as Lambda runs a function with active tracing, its first
// invocation sampled, its segments sent to the bench's stand-in for the X-Ray daemon. The
// floor traces nothing.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLING_BANNER, tracerDefine } from '../../infra/constructs/api-function.ts';
import { buildBundle, type DeployedBundle } from './bundles.ts';
import { type FunctionName, prepareHandlerBench, startHost } from './handler-bench.ts';
import { median, round } from './stats.ts';

export interface FirstInvocationFigures {
  function: FunctionName;
  /** Whether the function ran with the Powertools Tracer on, as its template says. */
  tracer: boolean;
  importMs: number;
  firstMs: number;
  totalMs: number;
  floorImportMs: number;
  floorFirstMs: number;
  floorTotalMs: number;
  /** Median of import + first invocation ÷ the floor's, run by run. */
  totalRatio: number;
  /** X-Ray segments the function's runs sent, all runs together (0 with the Tracer off). */
  xraySegments: number;
  /**
   * Beside, not instead: for a function with the Tracer on, the same function bundled as a stage
   * with `powertoolsTracer: false` bundles it (no Tracer in the bundle), in the same runs.
   */
  tracerOff?: { importMs: number; firstMs: number; totalMs: number; totalRatio: number };
}

const OUT = fileURLToPath(new URL('../../cdk.out/bench-cold-start/', import.meta.url));
type Side = 'floor' | 'function' | 'tracer off';

interface Sample {
  importMs: number;
  firstMs: number;
}

/**
 * `deployed`: cdk.out's bundles (bundles.ts); each function found there runs from its file with
 * its template's POWERTOOLS_TRACE_ENABLED. Functions not found run the bench's own build, Tracer off.
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
      await Promise.all(
        names.map(async (name) => {
          const found = deployed.find((d) => d.name === name);
          const tracer = found?.environment.POWERTOOLS_TRACE_ENABLED === 'true';
          const files: Partial<Record<Side, string>> = {
            floor: env.bundles[name].floor,
            function: found?.file ?? env.bundles[name].function,
            ...(found &&
              tracer && {
                'tracer off': await buildBundle(
                  found.entry,
                  join(OUT, name, 'tracer-off'),
                  BUNDLING_BANNER,
                  'bundled',
                  [],
                  tracerDefine(false),
                ),
              }),
          };
          return [name, { tracer, files }] as const;
        }),
      ),
    );
    const samples = new Map(names.map((name) => [name, new Map<Side, Sample[]>()]));
    const segments = new Map<FunctionName, number>();
    log(`measuring import + first invocation: ${names.length} functions and their floors × ${runs} fresh processes…`);
    for (let run = 0; run < runs; run++) {
      for (const name of names) {
        const { tracer, files } = bundles.get(name)!;
        // A different order each run, so that a slow spell of the machine lands on all alike.
        const present = Object.keys(files) as Side[];
        const sides = present.map((_, i) => present[(i + run) % present.length]!);
        for (const side of sides) {
          const traced = tracer && side === 'function';
          const sentBefore = env.segmentsSent();
          const host = await startHost(
            files[side]!,
            side === 'floor' ? name : 'handler',
            env.events[name],
            env.environment(name, traced ? 'sampled' : 'off'),
          );
          const result = await host.call<Sample & { last: { statusCode?: number; error?: string } }>({ type: 'first' });
          await host.stop();
          if (result.last.error !== undefined || (result.last.statusCode ?? 0) >= 400)
            throw new Error(`${name} (${side}) failed its first invocation: ${JSON.stringify(result.last)}`);
          const list = samples.get(name)!;
          list.set(side, [...(list.get(side) ?? []), { importMs: result.importMs, firstMs: result.firstMs }]);
          if (traced) segments.set(name, (segments.get(name) ?? 0) + env.segmentsSent() - sentBefore);
        }
      }
    }
    return names.map((name) => {
      const measured = samples.get(name)!;
      const floor = measured.get('floor')!;
      const total = (s: Sample) => s.importMs + s.firstMs;
      const m = (values: number[]) => round(median(values), 1);
      const figures = (side: Side) => {
        const runs = measured.get(side)!;
        return {
          importMs: m(runs.map((s) => s.importMs)),
          firstMs: m(runs.map((s) => s.firstMs)),
          totalMs: m(runs.map(total)),
          totalRatio: round(median(runs.map((s, i) => total(s) / total(floor[i]!))), 2),
        };
      };
      return {
        function: name,
        tracer: bundles.get(name)!.tracer,
        ...figures('function'),
        floorImportMs: m(floor.map((s) => s.importMs)),
        floorFirstMs: m(floor.map((s) => s.firstMs)),
        floorTotalMs: m(floor.map(total)),
        xraySegments: segments.get(name) ?? 0,
        ...(measured.has('tracer off') && { tracerOff: figures('tracer off') }),
      };
    });
  } finally {
    await env.close();
  }
};
