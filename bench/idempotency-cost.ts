// `npm run bench:idempotency`: what an Idempotency-Key adds to createPet. The whole local
// stage in this process, its embedded DynamoDB behind a counting proxy: DynamoDB requests
// on the wire per create without the header, with a new key, and for a replay; p50 of each,
// sequential, the three kinds taking turns; and createPet's bundle with and without the
// idempotency code. Knob: BENCH_IDEMPOTENCY_ROUNDS (200). Writes bench/results-idempotency.json.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUNDLING_BANNER } from '../infra/constructs/bundled-function.ts';
import { startLocalStage } from '../infra/local/stage.ts';
import { DEPLOYED_AUTHORIZER_CACHE_TTL_SECONDS } from '../infra/stages.ts';
import { route } from '../shared/api/routes.ts';
import { startDynamoDBProxy } from '../tools/harness/dynamodb-proxy.ts';
import { httpClient, type RequestSpec } from '../tools/harness/http-client.ts';
import { buildBundle, bundleSize } from './support/bundles.ts';
import { median, round } from './support/stats.ts';

const rounds = Number(process.env.BENCH_IDEMPOTENCY_ROUNDS ?? 200);
const work = mkdtempSync(join(tmpdir(), 'petstore-idempotency-'));
const stage = await startLocalStage({
  port: 0,
  host: '127.0.0.1',
  dataDir: join(work, 'data'),
  authorizerCacheTtlSeconds: DEPLOYED_AUTHORIZER_CACHE_TTL_SECONDS,
  throttle: { rate: 1e9, burst: 1e9 },
  logLevel: 'SILENT',
});
const proxy = await startDynamoDBProxy(stage.dynamodbEndpoint);
// The functions make their DynamoDB client on first use: every request of theirs goes through the proxy.
process.env.AWS_ENDPOINT_URL_DYNAMODB = proxy.endpoint;
const client = httpClient(stage.baseUrl, 1);

type Kind = 'no header' | 'new key' | 'replay';
const create = (name: string, key?: string): RequestSpec => ({
  method: 'POST',
  path: '/pets',
  headers: {
    Authorization: `Bearer ${stage.key}`,
    'Content-Type': 'application/json',
    ...(key && { 'Idempotency-Key': key }),
  },
  body: JSON.stringify({ name, categoryId: 1 }),
});
const latencies: Record<Kind, number[]> = { 'no header': [], 'new key': [], replay: [] };
const requests: Record<Kind, Record<string, number>> = { 'no header': {}, 'new key': {}, replay: {} };

const measure = async (kind: Kind, spec: RequestSpec) => {
  proxy.reset();
  const started = performance.now();
  const answer = await client.send(spec);
  const elapsed = performance.now() - started;
  if (answer.status !== 201) throw new Error(`${kind}: ${answer.status} ${answer.body}`);
  const replayed = answer.headers['idempotent-replayed'] === 'true';
  if (replayed !== (kind === 'replay')) throw new Error(`${kind}: Idempotent-Replayed ${replayed}`);
  latencies[kind].push(elapsed);
  // The authorizer's lookups are the same for all three (and cached): only the function's requests count.
  for (const { operation, table } of proxy.requests.filter((r) => r.table !== 'keys')) {
    const name = `${operation} ${table}`;
    requests[kind][name] = (requests[kind][name] ?? 0) + 1;
  }
};

try {
  await client.send(create('warm-up', randomUUID())); // first invocation, first id block
  for (let i = 0; i < rounds; i++) {
    const key = randomUUID();
    await measure('no header', create(`plain ${i}`));
    await measure('new key', create(`keyed ${i}`, key));
    await measure('replay', create(`keyed ${i}`, key));
  }
  if (!Object.keys(requests['no header']).length) throw new Error('no DynamoDB request went through the proxy');

  // createPet's bundle as the stack builds it, and again with the idempotency module stubbed out.
  const entry = route('createPet').entry;
  const withIdempotency = bundleSize(await buildBundle(entry, join(work, 'with'), BUNDLING_BANNER, 'bundled'));
  const stub = {
    name: 'without-idempotency',
    setup(build: import('esbuild').PluginBuild) {
      build.onLoad({ filter: /shared[\\/]lambda[\\/]idempotency\.ts$/ }, () => ({
        contents: 'export const idempotently = (_event, _context, _body, operation) => operation.create();',
        loader: 'js',
      }));
    },
  };
  const without = bundleSize(await buildBundle(entry, join(work, 'without'), BUNDLING_BANNER, 'bundled', [stub]));

  const kinds = Object.keys(latencies) as Kind[];
  const results = {
    rounds,
    perCreate: Object.fromEntries(
      kinds.map((kind) => [
        kind,
        {
          p50Ms: round(median(latencies[kind])),
          dynamodbRequests: round(Object.values(requests[kind]).reduce((a, b) => a + b, 0) / rounds),
          byOperation: Object.fromEntries(Object.entries(requests[kind]).map(([op, n]) => [op, round(n / rounds)])),
        },
      ]),
    ),
    bundle: {
      withIdempotencyKb: round(withIdempotency.bytes / 1024, 1),
      withoutKb: round(without.bytes / 1024, 1),
      gzipWithKb: round(withIdempotency.gzipBytes / 1024, 1),
      gzipWithoutKb: round(without.gzipBytes / 1024, 1),
    },
  };
  writeFileSync(new URL('./results-idempotency.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
  console.log(JSON.stringify(results, null, 2));
} finally {
  client.close();
  await proxy.close();
  await stage.close();
  rmSync(work, { recursive: true, force: true });
}
