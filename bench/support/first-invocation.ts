// What a cold start costs a Lambda, import and first invocation, for each function
// beside the floor (bench/floor/handlers.ts): each a fresh process that imports its
// bundle and answers one event from the embedded DynamoDB. Sides alternate run by run.
import { type FunctionName, prepareHandlerBench, startHost } from './handler-bench.ts';
import { median, round } from './stats.ts';

export interface FirstInvocationFigures {
  function: FunctionName;
  importMs: number;
  firstMs: number;
  totalMs: number;
  floorImportMs: number;
  floorFirstMs: number;
  floorTotalMs: number;
  /** Median of import + first invocation ÷ the floor's, run by run. */
  totalRatio: number;
}

interface Sample {
  importMs: number;
  firstMs: number;
}

export const measureFirstInvocations = async (
  runs: number,
  log: (message: string) => void,
): Promise<FirstInvocationFigures[]> => {
  const env = await prepareHandlerBench();
  try {
    const names = Object.keys(env.bundles) as FunctionName[];
    const samples = new Map(names.map((name) => [name, { function: [] as Sample[], floor: [] as Sample[] }]));
    log(`measuring import + first invocation: ${names.length} functions and their floors × ${runs} fresh processes…`);
    for (let run = 0; run < runs; run++) {
      for (const name of names) {
        const sides = run % 2 === 0 ? (['floor', 'function'] as const) : (['function', 'floor'] as const);
        for (const side of sides) {
          const file = env.bundles[name][side];
          const host = await startHost(
            file,
            side === 'floor' ? name : 'handler',
            env.events[name],
            env.environment(name, 'off'),
          );
          const result = await host.call<Sample & { last: { statusCode?: number; error?: string } }>({ type: 'first' });
          await host.stop();
          if (result.last.error !== undefined || (result.last.statusCode ?? 0) >= 400)
            throw new Error(`${name} (${side}) failed its first invocation: ${JSON.stringify(result.last)}`);
          samples.get(name)![side].push({ importMs: result.importMs, firstMs: result.firstMs });
        }
      }
    }
    return names.map((name) => {
      const { function: fn, floor } = samples.get(name)!;
      const total = (s: Sample) => s.importMs + s.firstMs;
      const m = (values: number[]) => round(median(values), 1);
      return {
        function: name,
        importMs: m(fn.map((s) => s.importMs)),
        firstMs: m(fn.map((s) => s.firstMs)),
        totalMs: m(fn.map(total)),
        floorImportMs: m(floor.map((s) => s.importMs)),
        floorFirstMs: m(floor.map((s) => s.firstMs)),
        floorTotalMs: m(floor.map(total)),
        totalRatio: round(median(fn.map((s, i) => total(s) / total(floor[i]!))), 2),
      };
    });
  } finally {
    await env.close();
  }
};
