// `npm run bench:instructions` as npm runs it, short: getPet and its floor each in a process of its
// own under valgrind's callgrind (on this machine and CI's), warmed up, zeroed, counted. Each
// profile's functions must add up to valgrind's own total (tools/harness/callgrind.ts refuses one
// that does not), and both sides must have run: the floor's invocation is the SDK's call, the
// function's that and our layers. No benchmark code is imported (test/unit/architecture.test.ts).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const { scripts } = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};
/** `12.3k` as a count. */
const count = (text: string) => Number(text.replace(/k$/, '')) * 1000;

test('bench:instructions counts getPet and its floor: the function runs more instructions than the floor', () => {
  const [, ...words] = scripts['bench:instructions']!.split(' '); // `node …`: this Node, as npm's would be
  const result = spawnSync(process.execPath, words, {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 230_000,
    env: {
      ...process.env,
      INSTRUCTIONS_FUNCTIONS: 'getPet',
      INSTRUCTIONS_TRACING: 'off',
      INSTRUCTIONS_WARMUP: '20',
      INSTRUCTIONS_INVOCATIONS: '20',
    },
  });
  expect(result.status, result.stderr.slice(-2000) + result.stdout.slice(-2000)).toBe(0);
  const row = result.stdout.split('\n').find((line) => line.startsWith('getPet'));
  expect(row, result.stdout).toBeDefined();
  const [, tracing, floor, own, ratio, programRatio, collector, compilers] = row!.split(/\s{2,}/);
  expect(tracing).toBe('off');
  // A DynamoDB call through the SDK and Node's HTTP is well over 100k instructions.
  expect(count(floor!)).toBeGreaterThan(100_000);
  expect(Number(ratio)).toBeCloseTo(count(own!) / count(floor!), 2);
  // Our layers on top of the same call: in the program's own instructions. The totals hold V8's
  // compilers and collector too, which 20 invocations after 20 are mostly made of, and which ran
  // more in the floor's window than in the function's in one CI run (6.47M against 4.91M).
  const sides = (text: string) => text.split(' / ').map(count) as [number, number];
  const [[collectorFloor, collectorOwn], [compilersFloor, compilersOwn]] = [sides(collector!), sides(compilers!)];
  const [programFloor, programOwn] = [
    count(floor!) - collectorFloor - compilersFloor,
    count(own!) - collectorOwn - compilersOwn,
  ];
  expect(programOwn).toBeGreaterThan(programFloor);
  expect(Number(programRatio)).toBeCloseTo(programOwn / programFloor, 1);
}, 240_000);
