// `npm run bench:gc`: whose allocations each server's heap collects, per route, in bytes and
// collections rather than time, so that the figures hold on a busy machine (docs/performance.md,
// The young generation). The sides one after the other: the floor (plain dynalite, part 1's bare
// server), `npm start`, and each BENCH_BEFORE checkout's `npm start`; each holds 1,000 animals and
// takes part 1's requests of each route on 16 connections (over 8 keys where there are keys): a
// warm-up of 2,000, then GC_REQUESTS (6,000) inside a window of bench/support/gc-window.ts, loaded
// into the server with --import. Per route and side: KB allocated a request (V8's sampling heap
// profiler, objects collected since counted), split by owner (the store: dynalite, its LevelDB
// modules and streams; the SDK, with the HTTP request to the store it makes; util-dynamodb; ours:
// this repository's code, middy, zod; Node's own functions with no caller of a package), scavenges
// and mark-compacts per 1,000 requests, and KB a request the scavenges promoted.
// Environment: GC_REQUESTS (6000), GC_WARMUP (2000), GC_ROUTES (comma-separated, of getPet,
// listPets, listPets status=sold, createPet), GC_WINDOW_SURVIVORS=1 (count only the objects that
// outlived a scavenge: what is promoted, by owner), BENCH_BEFORE=dir[,dir…] (as for `npm run bench`).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { disposeServer } from '../tools/harness/local-server.ts';
import { sampleHttpRequest, sampleRequests } from '../tools/harness/sample-requests.ts';
import { allocationByOwner, collections, type GCWindow, OWNERS } from './support/gc-figures.ts';
import { SEED_FIRST_ID, seedPets } from './support/seed.ts';
import { autocannonRequest } from './support/side-by-side.ts';
import { round, table } from './support/stats.ts';

const WINDOW = fileURLToPath(new URL('./support/gc-window.ts', import.meta.url));
process.env.GC_WINDOW_DIR = mkdtempSync(join(tmpdir(), 'petstore-gc-'));
process.env.BENCH_NODE_ARGS = `${process.env.BENCH_NODE_ARGS ?? ''} --import ${WINDOW}`;
// After the settings above: servers.ts reads BENCH_NODE_ARGS when loaded.
const { startBareServer, startUserServer, warmCompileCache } = await import('./support/servers.ts');
type BenchServer = Awaited<ReturnType<typeof startBareServer>>;

const requests = Number(process.env.GC_REQUESTS ?? 6000);
const warmup = Number(process.env.GC_WARMUP ?? 2000);
const others = (process.env.BENCH_BEFORE?.split(',') ?? []).filter(Boolean).map((dir) => resolve(dir));

const request = (operationId: 'getPet' | 'listPets' | 'createPet', overrides: (i: number) => object) => {
  const { status: _, ...valid } = sampleRequests[operationId].valid;
  return (i: number) => sampleHttpRequest(operationId, { ...valid, ...overrides(i) });
};
const ROUTES = {
  getPet: request('getPet', (i) => ({ pathParameters: { petId: String(SEED_FIRST_ID + (i % 1000)) } })),
  listPets: request('listPets', () => ({ query: { limit: '20' } })),
  'listPets status=sold': request('listPets', () => ({ query: { limit: '20', status: 'sold' } })),
  createPet: request('createPet', (i) => ({ body: { name: `Bench ${i}`, categoryId: (i % 50) + 1 } })),
};
type Route = keyof typeof ROUTES;
const routes = (process.env.GC_ROUTES?.split(',') ?? Object.keys(ROUTES)) as Route[];
for (const route of routes) if (!(route in ROUTES)) throw new Error(`GC_ROUTES: no route ${route}`);

/** `amount` requests of `route` on 16 connections; every answer must be a 2xx. */
const load = async (server: BenchServer, route: Route, amount: number, from: number) => {
  let i = from;
  let refused = 0;
  const instance = autocannon({
    url: server.baseUrl,
    connections: 16,
    amount,
    requests: [
      {
        setupRequest: (r) => {
          const spec = ROUTES[route](i);
          const key = server.keys.length ? server.keys[i % server.keys.length] : undefined;
          i++;
          const headers = key ? { Authorization: `Bearer ${key}`, ...spec.headers } : spec.headers;
          return autocannonRequest(server.baseUrl, { ...spec, headers }, r);
        },
      },
    ],
  }) as unknown as autocannon.Instance & Promise<autocannon.Result>;
  instance.on('response', (_client, status) => {
    if (status >= 300) refused++;
  });
  await instance;
  if (refused) throw new Error(`${route}: ${refused} answers were not 2xx`);
  return i;
};

/** Opens the server's window, runs `amount` requests, closes it and reads what it wrote. */
const measured = async (server: BenchServer, route: Route, amount: number, from: number): Promise<GCWindow> => {
  const directory = process.env.GC_WINDOW_DIR!;
  const pid = server.process.pid!;
  const before = new Set(readdirSync(directory));
  process.kill(pid, 'SIGUSR2');
  while (!existsSync(join(directory, `${pid}.open`))) await sleep(20);
  rmSync(join(directory, `${pid}.open`));
  await load(server, route, amount, from);
  process.kill(pid, 'SIGUSR2');
  for (;;) {
    const written = readdirSync(directory).find((f) => f.startsWith(`${pid}-`) && !before.has(f));
    if (written) {
      await sleep(200); // written whole: the profile is one writeFileSync, give it time to finish
      return JSON.parse(readFileSync(join(directory, written), 'utf8')) as GCWindow;
    }
    await sleep(50);
  }
};

const sides: [string, () => Promise<BenchServer>][] = [
  ['floor', () => startBareServer({ plain: true })],
  ['npm start', () => startUserServer({}, undefined, 8)],
  ...others.map((dir): [string, () => Promise<BenchServer>] => [basename(dir), () => startUserServer({}, dir, 8)]),
];
const rows: (string | number)[][] = [];
for (const root of [undefined, ...others]) await warmCompileCache(root);
for (const [name, start] of sides) {
  const server = await start();
  try {
    await seedPets(server.dynamodbEndpoint, 1000);
    let i = 0;
    for (const route of routes) {
      i = await load(server, route, warmup, i);
      const window = await measured(server, route, requests, i);
      i += requests;
      const { total, byOwner } = allocationByOwner(window, requests);
      const gc = collections(window, requests);
      rows.push([
        route,
        name,
        round(total, 1),
        ...OWNERS.map((o) => round(byOwner[o], 1)),
        round(gc.scavengesPer1000, 1),
        round(gc.markCompactsPer1000, 2),
        round(gc.promotedKB, 1),
      ]);
      console.error(`${name}, ${route}: done`);
    }
  } finally {
    await disposeServer(server);
  }
}
rmSync(process.env.GC_WINDOW_DIR, { recursive: true, force: true });
rows.sort((a, b) => routes.indexOf(a[0] as Route) - routes.indexOf(b[0] as Route));
const what = process.env.GC_WINDOW_SURVIVORS === '1' ? 'outlived a scavenge' : 'allocated';
console.log(
  table([
    [
      'route',
      'side',
      `KB ${what} a request`,
      ...OWNERS,
      'scavenges / 1,000',
      'mark-compacts / 1,000',
      'KB promoted a request',
    ],
    ...rows,
  ]),
);
