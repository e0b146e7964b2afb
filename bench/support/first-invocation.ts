// What a cold start costs a Lambda, import and first invocation, for each function
// beside the floor (bench/floor/handlers.ts): each a fresh process that imports its
// bundle and answers one event from the embedded DynamoDB. Sides alternate run by run.
// Each function runs the bundle `cdk synth` made (cdk.out) with what its template turns on:
// with POWERTOOLS_TRACE_ENABLED true, as Lambda runs a function with active tracing, its first
// invocation sampled, its segments sent to the bench's stand-in for the X-Ray daemon. The
// floor traces nothing.
import type { DeployedBundle } from './bundles.ts';
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
}

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
    const bundleOf = (name: FunctionName) => {
      const found = deployed.find((d) => d.name === name);
      return {
        file: found?.file ?? env.bundles[name].function,
        tracer: found?.environment.POWERTOOLS_TRACE_ENABLED === 'true',
      };
    };
    const samples = new Map(names.map((name) => [name, { function: [] as Sample[], floor: [] as Sample[] }]));
    const segments = new Map<FunctionName, number>();
    log(`measuring import + first invocation: ${names.length} functions and their floors × ${runs} fresh processes…`);
    for (let run = 0; run < runs; run++) {
      for (const name of names) {
        const sides = run % 2 === 0 ? (['floor', 'function'] as const) : (['function', 'floor'] as const);
        for (const side of sides) {
          const { file, tracer } = side === 'floor' ? { file: env.bundles[name].floor, tracer: false } : bundleOf(name);
          const sentBefore = env.segmentsSent();
          const host = await startHost(
            file,
            side === 'floor' ? name : 'handler',
            env.events[name],
            env.environment(name, tracer ? 'sampled' : 'off'),
          );
          const result = await host.call<Sample & { last: { statusCode?: number; error?: string } }>({ type: 'first' });
          await host.stop();
          if (result.last.error !== undefined || (result.last.statusCode ?? 0) >= 400)
            throw new Error(`${name} (${side}) failed its first invocation: ${JSON.stringify(result.last)}`);
          samples.get(name)![side].push({ importMs: result.importMs, firstMs: result.firstMs });
          if (side === 'function') segments.set(name, (segments.get(name) ?? 0) + env.segmentsSent() - sentBefore);
        }
      }
    }
    // A UDP datagram may still be on its way.
    await new Promise((resolve) => setTimeout(resolve, 100));
    return names.map((name) => {
      const { function: fn, floor } = samples.get(name)!;
      const total = (s: Sample) => s.importMs + s.firstMs;
      const m = (values: number[]) => round(median(values), 1);
      return {
        function: name,
        tracer: bundleOf(name).tracer,
        importMs: m(fn.map((s) => s.importMs)),
        firstMs: m(fn.map((s) => s.firstMs)),
        totalMs: m(fn.map(total)),
        floorImportMs: m(floor.map((s) => s.importMs)),
        floorFirstMs: m(floor.map((s) => s.firstMs)),
        floorTotalMs: m(floor.map(total)),
        totalRatio: round(median(fn.map((s, i) => total(s) / total(floor[i]!))), 2),
        xraySegments: segments.get(name) ?? 0,
      };
    });
  } finally {
    await env.close();
  }
};
