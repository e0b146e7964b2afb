// `npm start` and `npm run dev` give Node the memory settings of docs/performance.md ("Memory"),
// and the harness that tests and `npm run bench` start the server with runs it with the same
// flags and environment, read from the one place they live (package.json), so what is measured
// is what runs.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { npmScriptCommand } from '../../tools/harness/local-server.ts';

/** What the harness runs for `entry`'s script: its flags (the entry dropped) and the environment. */
const flagsOf = (entry: string) => npmScriptCommand(entry, {}).args.slice(0, -1);
const envOf = (entry: string, env: NodeJS.ProcessEnv, cwd?: string) => npmScriptCommand(entry, env, { cwd }).env;

const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
/** glibc's malloc with 2 arenas, not 8 per core: the listing-cache attack's peak RSS 173–181 MB against 181–221 without (four runs each, taking turns), CPU within the noise; a user's own setting kept. */
const MALLOC_ARENAS = `MALLOC_ARENA_MAX=\${MALLOC_ARENA_MAX:-2}`;
/** V8's young generation at 16 MB semi-spaces: ~100 MB less RSS under load than V8's 64 MB default on a large machine, for no measurable CPU. */
const YOUNG_GENERATION = '--max-semi-space-size=16';
/** The old generation grown to 2× what is live between mark-compacts, not V8's up to 4×: RSS under load ≤ 200 MB with room to spare, for a few per cent more CPU on the listings. */
const OLD_GENERATION = '--heap-growing-percent=100';
/** V8's gc(), for the memory-reducing collection once idle (infra/local/idle-memory.ts): set at run time, the flag cost ~30 % CPU. */
const EXPOSE_GC = '--expose-gc';
/** Node's compile cache, turned on and filled (in a child) before any TypeScript is stripped: the server loads no stripper (~17 MB). */
const COMPILE_CACHE = ['--import', './infra/local/compile-cache.mjs'];

describe('Node flags of the local server', () => {
  test.each([
    ['start', 'infra/local/server.ts'],
    ['dev', 'infra/local/dev.ts'],
  ])(
    'npm %s runs %s with glibc’s arenas and both generations held, gc() exposed and the compile cache on, and the harness reads them from there',
    (script, entry) => {
      expect(scripts[script]).toBe(
        `${MALLOC_ARENAS} exec node ${YOUNG_GENERATION} ${OLD_GENERATION} ${EXPOSE_GC} ${COMPILE_CACHE.join(' ')} ${entry}`,
      );
      expect(npmScriptCommand(entry, {}).args).toEqual([
        YOUNG_GENERATION,
        OLD_GENERATION,
        EXPOSE_GC,
        ...COMPILE_CACHE,
        entry,
      ]);
      expect(envOf(entry, { HOME: '/h' })).toEqual({ HOME: '/h', MALLOC_ARENA_MAX: '2' });
    },
  );

  test('the script’s default yields to a user’s own MALLOC_ARENA_MAX, as sh’s `:-` does, and an empty one is unset', () => {
    const entry = 'infra/local/server.ts';
    expect(envOf(entry, { MALLOC_ARENA_MAX: '8' }).MALLOC_ARENA_MAX).toBe('8');
    expect(envOf(entry, { MALLOC_ARENA_MAX: '' }).MALLOC_ARENA_MAX).toBe('2');
    for (const given of [{ MALLOC_ARENA_MAX: '8' }, { MALLOC_ARENA_MAX: '' }, {}]) {
      const sh = execFileSync('sh', ['-c', `${scripts.start!.split(' exec ')[0]} exec env`], {
        env: given,
        encoding: 'utf8',
      });
      expect(/^MALLOC_ARENA_MAX=(.*)$/m.exec(sh)?.[1]).toBe(envOf(entry, given).MALLOC_ARENA_MAX);
    }
  });

  test('a script with shell syntax the harness cannot read fails loudly rather than start something else', () => {
    const dir = mkdtempSync(join(tmpdir(), 'node-flags-'));
    try {
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ scripts: { start: 'A=$(date) exec node x.ts' } }));
      expect(() => envOf('x.ts', {}, dir)).toThrow(/cannot read A=\$\(date\)/);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  test('an entry no npm script runs gets no flags (the bench’s bare server runs as Node starts it)', () => {
    expect(flagsOf('bench/support/bare-server.ts')).toEqual([]);
    expect(envOf('bench/support/bare-server.ts', { HOME: '/h' })).toEqual({ HOME: '/h' });
  });
});
