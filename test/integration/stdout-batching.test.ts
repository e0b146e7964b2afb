// The local stage's stdout is written once per turn of the event loop (infra/local/stdout-batching.ts):
// what one turn writes goes out together at its end, in order, a write to stderr first lets out
// what stdout holds, and nothing held is lost when the process exits, cleanly or not. Each case
// runs in a process of its own, its stdout and stderr one pipe (`2>&1`), as a terminal shows them.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';

const MODULE = pathToFileURL(resolve(import.meta.dirname, '../../infra/local/stdout-batching.ts')).href;

/** Runs `code` (an ES module) after batchStdoutByTurn(); what it printed on both streams, in order. */
const run = (code: string) => {
  const script = `import { batchStdoutByTurn } from '${MODULE}';\nbatchStdoutByTurn();\n${code}`;
  const result = spawnSync('sh', ['-c', '"$0" "$@" 2>&1', process.execPath, '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  return { status: result.status, output: result.stdout };
};

describe('stdout written once per turn', () => {
  test("holds a turn's lines until the turn ends, then writes them all", () => {
    const { status, output } = run(`
      process.stdout.write('one\\n');
      const afterOne = process.stdout.writableLength;
      console.log('two');
      const afterTwo = process.stdout.writableLength;
      setImmediate(() => console.log(JSON.stringify({ afterOne, afterTwo, next: process.stdout.writableLength })));
    `);
    expect(status).toBe(0);
    const [one, two, held] = output.split('\n');
    expect([one, two]).toEqual(['one', 'two']);
    // Held, not yet written, during the turn; gone (written) by the next one.
    expect(JSON.parse(held!)).toEqual({ afterOne: 4, afterTwo: 8, next: 0 });
  });

  test('keeps the order of stdout and stderr lines, within a turn and across turns', () => {
    const { status, output } = run(`
      console.log('out 1');
      console.error('err 2');
      console.log('out 3');
      setImmediate(() => {
        console.log('out 4');
        setTimeout(() => { console.log('out 5'); console.error('err 6'); }, 5);
      });
    `);
    expect(status).toBe(0);
    expect(output).toBe('out 1\nerr 2\nout 3\nout 4\nout 5\nerr 6\n');
  });

  test.each([
    ['process.exit()', "console.log('last'); process.exit(3);", 3],
    ['an uncaught exception', "console.log('last'); throw new Error('boom');", 1],
    ['an unhandled rejection', "console.log('last'); Promise.reject(new Error('boom'));", 1],
    ['the end of the event loop', "console.log('last');", 0],
  ])('writes what it holds when the process ends with %s', (_, code, exitCode) => {
    const { status, output } = run(`console.log('first');\nsetImmediate(() => { ${code} });`);
    expect(status).toBe(exitCode);
    expect(output).toMatch(/^first\nlast\n/);
    // An error Node prints comes after the lines written before it.
    if (exitCode === 1) expect(output.slice('first\nlast\n'.length)).toMatch(/Error: boom/);
  });
});
