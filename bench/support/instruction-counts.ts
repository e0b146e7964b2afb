// Instructions per warm invocation, of a function and of its floor with the functions' client
// (bench/floor/handlers.ts), each side in its own process under valgrind's callgrind: counts that
// whatever else the machine runs does not move, which CPU time is not (the handler benchmarks'
// rounds of the same code differ by 10-20 %). Each side is warmed up, its counters zeroed, then
// `invocations` run one after another and counted. V8's collector and compilers run when their
// heuristics say, some of them timed (slower under valgrind), so they are reported apart; the
// rest moves too, as code tiers up, by a few per cent between runs of the same code
// (docs/performance.md, "How the figures are taken").
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { instructionSplit } from '../../tools/harness/callgrind.ts';
import type { LambdaEnv, Variant } from './lambda-env.ts';
import { atMost, round, type Target, table } from './stats.ts';

const run = promisify(execFile);
/** Targets as for CPU per invocation (handler-bench.ts): untraced 1.1, sampled 1.3. */
const TARGETS = { off: 1.1, unsampled: 1.1, sampled: 1.3 } as const;
const SIDES = ['tuned floor', 'function'] as const;

export type InstructionSplit = ReturnType<typeof instructionSplit>;
export interface InstructionFigures {
  readonly variant: Variant;
  /** Per invocation, the tuned floor's and the function's. */
  readonly sides: readonly [InstructionSplit, InstructionSplit];
}

/** callgrind's own tool: `-z` zeroes the counters of the process, `-d` writes them out. */
const control = (option: '-z' | '-d', pid: number) => run('callgrind_control', [option, String(pid)]);

export const countInstructions = async (
  env: LambdaEnv,
  variant: Variant,
  { warmup, invocations }: { warmup: number; invocations: number },
): Promise<InstructionFigures> => {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-callgrind-'));
  try {
    // --smc-check: V8 writes the code it runs, which valgrind must then translate anew.
    const launcher = [
      'valgrind',
      '-q',
      '--tool=callgrind',
      '--smc-check=all-non-file',
      `--callgrind-out-file=${dir}/cg.%p`,
    ];
    const sides = await Promise.all(
      SIDES.map(async (side) => {
        const host = await env.host(variant, side, launcher as [string, ...string[]]);
        try {
          await host.run(warmup);
          await control('-z', host.pid);
          await host.run(invocations);
          await control('-d', host.pid);
        } finally {
          await host.stop();
        }
        const split = instructionSplit(readFileSync(join(dir, `cg.${host.pid}.1`), 'utf8'));
        const [total, gc, compiler] = [split.total, split.gc, split.compiler].map((n) => Math.round(n / invocations));
        return { total, gc, compiler, program: total! - gc! - compiler! } as InstructionSplit;
      }),
    );
    return { variant, sides: sides as [InstructionSplit, InstructionSplit] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

const thousands = (count: number) => `${(count / 1000).toFixed(1)}k`;
const ratio = (figures: InstructionFigures, part: keyof InstructionSplit) =>
  round(figures.sides[1][part] / figures.sides[0][part], 3);

export const instructionsTable = (figures: readonly InstructionFigures[]): string =>
  table([
    ['function', 'tracing', 'floor', 'function', '÷ floor', 'program ÷', 'GC floor/fn', 'compiler floor/fn'],
    ...figures.map((f) => {
      const [floor, own] = f.sides;
      return [
        f.variant.function,
        f.variant.tracing,
        thousands(floor.total),
        thousands(own.total),
        String(ratio(f, 'total')),
        String(ratio(f, 'program')),
        `${thousands(floor.gc)} / ${thousands(own.gc)}`,
        `${thousands(floor.compiler)} / ${thousands(own.compiler)}`,
      ];
    }),
  ]);

export const instructionTargets = (figures: readonly InstructionFigures[]): Target[] =>
  figures.map((f) =>
    atMost(
      `${f.variant.function}, tracing ${f.variant.tracing}: instructions/inv. ÷ floor with the functions' client`,
      ratio(f, 'total'),
      TARGETS[f.variant.tracing],
    ),
  );
