// `npm start` and `npm run dev` give Node the memory settings of docs/performance.md ("Memory"),
// and the harness that tests and `npm run bench` start the server with runs it with the same
// flags, read from the one place they live (package.json), so what is measured is what runs.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { npmScriptFlags } from '../../tools/harness/local-server.ts';

const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
/** V8's young generation at 16 MB semi-spaces: ~100 MB less RSS under load than V8's 64 MB default on a large machine, for no measurable CPU. */
const YOUNG_GENERATION = '--max-semi-space-size=16';
/** The old generation grown to 2× what is live between mark-compacts, not V8's up to 4×: RSS under load ≤ 200 MB with room to spare, for a few per cent more CPU on the listings. */
const OLD_GENERATION = '--heap-growing-percent=100';
/** V8's gc(), for the memory-reducing collection once idle (infra/local/idle-memory.ts): set at run time, the flag cost ~30 % CPU. */
const EXPOSE_GC = '--expose-gc';
/** Node's compile cache, turned on before any TypeScript is stripped: from the second start on, no stripper (18 MB) is loaded. */
const COMPILE_CACHE = ['--import', './infra/local/compile-cache.mjs'];

describe('Node flags of the local server', () => {
  test.each([
    ['start', 'infra/local/server.ts'],
    ['dev', 'infra/local/dev.ts'],
  ])(
    'npm %s runs %s with both generations held, gc() exposed and the compile cache on, and the harness reads them from there',
    (script, entry) => {
      expect(scripts[script]).toBe(
        `exec node ${YOUNG_GENERATION} ${OLD_GENERATION} ${EXPOSE_GC} ${COMPILE_CACHE.join(' ')} ${entry}`,
      );
      expect(npmScriptFlags(entry)).toEqual([YOUNG_GENERATION, OLD_GENERATION, EXPOSE_GC, ...COMPILE_CACHE]);
    },
  );

  test('an entry no npm script runs gets no flags (the bench’s bare server runs as Node starts it)', () => {
    expect(npmScriptFlags('bench/support/bare-server.ts')).toEqual([]);
  });
});
