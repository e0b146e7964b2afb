// The keys' daily counts on disk (infra/local/key-usage.ts): written a moment after they change,
// off the event loop, without losing a count that arrives while a write is under way, and at
// exit whatever a write under way had not put in place yet.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { keyUsage, utcDay } from '../../infra/local/key-usage.ts';

const day = utcDay(Date.now());
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const total = (file: string) =>
  Object.values((JSON.parse(readFileSync(file, 'utf8')) as { used: Record<string, number> }).used).reduce(
    (a, b) => a + b,
    0,
  );

const exitListeners: Array<(code: number) => void> = [];
/** keyUsage on `file`, with the listener it leaves for the process's exit. */
const open = (file: string) => {
  const before = new Set(process.listeners('exit'));
  const usage = keyUsage(file);
  const atExit = process.listeners('exit').find((listener) => !before.has(listener))!;
  exitListeners.push(atExit);
  return { usage, atExit: () => atExit(0) };
};
afterEach(() => {
  for (const listener of exitListeners.splice(0)) process.off('exit', listener);
});

const newFile = () => join(mkdtempSync(join(tmpdir(), 'key-usage-')), 'key-usage.json');

test('counts reach the file a moment later, those of a write under way included, added to what it held', async () => {
  const file = newFile();
  writeFileSync(file, JSON.stringify({ day, used: { other: 5 } })); // another generation's
  const { usage } = open(file);
  for (let i = 0; i < 10; i++) usage.count('key-a', day);
  await sleep(205); // the write has started: these come while it is under way
  for (let i = 0; i < 7; i++) usage.count('key-b', day);
  await sleep(600);
  expect(total(file)).toBe(5 + 10 + 7);
  const restarted = open(file).usage; // what a restart reads back
  expect(restarted.saved('key-a', day) + restarted.saved('key-b', day)).toBe(17);
});

test('an exit while a write is under way keeps its counts and the pending ones, once each', async () => {
  const file = newFile();
  const { usage, atExit } = open(file);
  for (let i = 0; i < 10; i++) usage.count('key-a', day);
  // After the write's timer (set by the first count, so it runs first): the write is under way.
  await new Promise<void>((resolve) =>
    setTimeout(() => {
      usage.count('key-a', day);
      atExit();
      resolve();
    }, 200),
  );
  expect(total(file)).toBe(11);
  await sleep(300); // the write under way, done after all, adds nothing twice
  expect(total(file)).toBeLessThanOrEqual(11);
});

test('an exit after the write landed adds nothing again', async () => {
  const file = newFile();
  const { usage, atExit } = open(file);
  for (let i = 0; i < 4; i++) usage.count('key-a', day);
  await sleep(500);
  atExit();
  expect(total(file)).toBe(4);
});
