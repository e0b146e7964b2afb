// `npm start` and `npm run dev` give Node the memory settings of docs/performance.md ("Memory"),
// and the harness that tests and `npm run bench` start the server with runs it with the same
// flags, read from the one place they live (package.json), so what is measured is what runs.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { npmScriptFlags } from '../../tools/harness/local-server.ts';

const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
/** V8's young generation at 16 MB semi-spaces: ~100 MB less RSS under load than V8's 64 MB default on a large machine, for no measurable CPU. */
const YOUNG_GENERATION = '--max-semi-space-size=16';
/**
 * An old generation capped at 512 MB, ~20 times the live heap under any load the contract allows:
 * below V8's default cap (a quarter of the machine's memory, up to ~4 GB) V8 grows the old
 * generation by 1.3–2 × between mark-compacts, not 4 ×, which keeps ~90 MB of garbage off the RSS.
 */
const OLD_GENERATION = '--max-old-space-size=512';

describe('Node flags of the local server', () => {
  test.each([
    ['start', 'infra/local/server.ts'],
    ['dev', 'infra/local/dev.ts'],
  ])('npm %s runs %s with V8’s generations capped, and the harness reads them from there', (script, entry) => {
    expect(scripts[script]).toBe(`exec node ${YOUNG_GENERATION} ${OLD_GENERATION} ${entry}`);
    expect(npmScriptFlags(entry)).toEqual([YOUNG_GENERATION, OLD_GENERATION]);
  });

  test('an entry no npm script runs gets no flags (the bench’s bare server runs as Node starts it)', () => {
    expect(npmScriptFlags('bench/support/bare-server.ts')).toEqual([]);
  });
});
