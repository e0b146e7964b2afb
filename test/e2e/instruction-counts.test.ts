// `npm run bench:instructions` as npm runs it, short: getPet and its floor each in a process of its
// own under valgrind's callgrind (on this machine and CI's), warmed up, zeroed, counted. Each
// profile's functions must add up to valgrind's own total (tools/harness/callgrind.ts refuses one
// that does not). No benchmark code is imported (test/unit/architecture.test.ts).
//
// Which side is which is pinned with a copy of the checkout whose getPet answers at once, without
// DynamoDB: its count must be a small fraction of the floor's. The real getPet against its floor
// is not compared: 20 invocations after 20 are V8's first tiers at work, and the program's own
// instructions came out 1.15× the floor on this machine and 0.95× on CI's, for the same code.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, test } from 'vitest';
import { withCheckoutCopy } from '../support/checkout-copy.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const { scripts } = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};
/** `12.3k` as a count. */
const count = (text: string) => Number(text.replace(/k$/, '')) * 1000;

/** getPet's row of a short run, in counts per invocation: the floor's and the function's. */
const countGetPet = (extra: Record<string, string> = {}) => {
  const [, ...words] = scripts['bench:instructions']!.split(' '); // `node …`: this Node, as npm's would be
  const result = spawnSync(process.execPath, words, {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 110_000,
    env: {
      ...process.env,
      INSTRUCTIONS_FUNCTIONS: 'getPet',
      INSTRUCTIONS_TRACING: 'off',
      INSTRUCTIONS_WARMUP: '20',
      INSTRUCTIONS_INVOCATIONS: '20',
      ...extra,
    },
  });
  expect(result.status, result.stderr.slice(-2000) + result.stdout.slice(-2000)).toBe(0);
  const row = result.stdout.split('\n').find((line) => line.startsWith('getPet'));
  expect(row, result.stdout).toBeDefined();
  const [, tracing, floor, own, ratio, programRatio, collector, compilers] = row!.split(/\s{2,}/);
  expect(tracing).toBe('off');
  const sides = (text: string) => text.split(' / ').map(count) as [number, number];
  const [[collectorFloor, collectorOwn], [compilersFloor, compilersOwn]] = [sides(collector!), sides(compilers!)];
  return {
    floor: count(floor!),
    own: count(own!),
    ratio: Number(ratio),
    programRatio: Number(programRatio),
    programFloor: count(floor!) - collectorFloor - compilersFloor,
    programOwn: count(own!) - collectorOwn - compilersOwn,
  };
};

test('bench:instructions counts getPet and its floor, each over 100k instructions, in columns that agree', () => {
  const row = countGetPet();
  // A DynamoDB call through the SDK and Node's HTTP is well over 100k instructions, on both sides.
  expect(row.floor).toBeGreaterThan(100_000);
  expect(row.own).toBeGreaterThan(100_000);
  expect(row.ratio).toBeCloseTo(row.own / row.floor, 2);
  expect(row.programRatio).toBeCloseTo(row.programOwn / row.programFloor, 1);
}, 120_000);

test("the function's column counts the function: a getPet that answers without DynamoDB counts a fraction of the floor", () => {
  const answersAtOnce = "export const handler = async () => ({ statusCode: 200, body: '{}' });\n";
  const row = withCheckoutCopy({ 'functions/get-pet.ts': answersAtOnce }, (checkout) =>
    countGetPet({ HANDLER_CHECKOUT: checkout }),
  );
  expect(row.floor).toBeGreaterThan(100_000);
  expect(row.own).toBeLessThan(row.floor / 4);
}, 120_000);
