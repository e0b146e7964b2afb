// `npm run bench:gc` (docs/performance.md, The young generation) runs as npm runs it, one listing
// route on both sides with few requests: every answer a 200 (it fails otherwise), a row per side,
// each row's owners adding up to its total, collections counted, and the listing's items read on
// `npm start` without util-dynamodb's unmarshall (the repository's petOf), where the floor's
// DocumentClient pays it. No benchmark code is imported (test/unit/architecture.test.ts).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const { scripts } = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};

test('bench:gc measures a route on the floor and npm start, its allocation split by owner', () => {
  const [, ...words] = scripts['bench:gc']!.split(' '); // `node …`: this Node, as npm's would be
  const result = spawnSync(process.execPath, words, {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 100_000,
    env: { ...process.env, GC_REQUESTS: '300', GC_WARMUP: '50', GC_ROUTES: 'listPets' },
  });
  expect(result.status, result.stderr + result.stdout.slice(-2000)).toBe(0);
  const rows = result.stdout
    .split('\n')
    .filter((line) => line.startsWith('listPets'))
    .map((line) => line.split(/ {2,}/));
  expect(rows.map((row) => row[1])).toEqual(['floor', 'npm start']);
  for (const [, side, total, store, sdk, unmarshall, ours, node, scavenges] of rows) {
    const owners = [store, sdk, unmarshall, ours, node].map(Number);
    expect(
      owners.reduce((a, b) => a + b, 0),
      side,
    ).toBeCloseTo(Number(total), 0);
    expect(Number(store), side).toBeGreaterThan(0);
    expect(Number(scavenges), side).toBeGreaterThan(0); // ~100 MB allocated in 16-32 MB semi-spaces
  }
  const unmarshalled = Object.fromEntries(rows.map((row) => [row[1], Number(row[5])]));
  expect(unmarshalled['npm start']).toBeLessThan(2); // KB a page of 21 items; unmarshall took ~30
  expect(unmarshalled.floor).toBeGreaterThan(10);
}, 120_000);
