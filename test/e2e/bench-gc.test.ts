// `npm run bench:gc` (docs/performance.md, The young generation) runs as npm runs it, every route
// it measures on both sides with few requests: every answer a 200 (it fails otherwise), a row per
// route and side, each row's owners adding up to its total, collections counted; the listings'
// items read on `npm start` without util-dynamodb's unmarshall (the repository's petOf), where the
// floor's DocumentClient pays it; and createPet's store share, dynalite's expression parse, paid
// once per distinct expression on `npm start` (infra/local/dynalite-expression-cache.ts) where the
// floor's plain dynalite parses every create. No benchmark code is imported
// (test/unit/architecture.test.ts).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const { scripts } = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};

/** The routes docs/performance.md's bench:gc tables report, in their order. */
const ROUTES = ['getPet', 'listPets', 'listPets status=sold', 'createPet'];
/**
 * KB a createPet that dynalite allocates on `npm start`: 262–263 when it parsed every create's
 * ConditionExpression, 62–63 once the parse was memoized (docs/performance.md, "dynalite's
 * expression parses, memoized"). Twice the memoized figure, half the unmemoized one.
 */
const CREATE_STORE_KB = 130;
/** The tool's columns after the route and the side: KB a request, by owner after the total. */
const COLUMNS = ['total', 'store', 'sdk', 'unmarshall', 'ours', 'node', 'scavenges'] as const;

test('bench:gc measures every route on the floor and npm start, its allocation split by owner', () => {
  const [, ...words] = scripts['bench:gc']!.split(' '); // `node …`: this Node, as npm's would be
  const result = spawnSync(process.execPath, words, {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 200_000,
    env: { ...process.env, GC_REQUESTS: '300', GC_WARMUP: '50', GC_ROUTES: undefined },
  });
  expect(result.status, result.stderr + result.stdout.slice(-2000)).toBe(0);
  const rows = result.stdout
    .split('\n')
    .filter((line) => ROUTES.some((route) => line.startsWith(`${route} `)))
    .map((line) => line.split(/ {2,}/));
  expect(rows.map((row) => `${row[0]}, ${row[1]}`)).toEqual(
    ROUTES.flatMap((route) => [`${route}, floor`, `${route}, npm start`]),
  );
  const figures = (route: string, side: string): Record<(typeof COLUMNS)[number], number> => {
    const row = rows.find(([r, s]) => r === route && s === side)!;
    return Object.fromEntries(COLUMNS.map((column, i) => [column, Number(row[i + 2])])) as never;
  };
  for (const route of ROUTES) {
    for (const side of ['floor', 'npm start']) {
      const { total, store, sdk, unmarshall, ours, node } = figures(route, side);
      expect(store + sdk + unmarshall + ours + node, `${route}, ${side}`).toBeCloseTo(total, 0);
      expect(store, `${route}, ${side}`).toBeGreaterThan(0);
    }
    // ≥ 160 KB a request, 300 requests, in 16 MB semi-spaces
    expect(figures(route, 'npm start').scavenges, route).toBeGreaterThan(0);
  }
  expect(figures('listPets', 'floor').scavenges).toBeGreaterThan(0); // ~140 MB in its 64 MB semi-spaces
  for (const listing of ['listPets', 'listPets status=sold']) {
    expect(figures(listing, 'npm start').unmarshall, listing).toBeLessThan(2); // KB a page of 21 items; unmarshall took ~30
    expect(figures(listing, 'floor').unmarshall, listing).toBeGreaterThan(10);
  }
  const create = { 'npm start': figures('createPet', 'npm start'), floor: figures('createPet', 'floor') };
  expect(create['npm start'].store, 'KB the store allocates a createPet').toBeLessThan(CREATE_STORE_KB);
  expect(create.floor.store, 'the floor parses every create').toBeGreaterThan(CREATE_STORE_KB);
}, 240_000);
