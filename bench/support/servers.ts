// The servers `npm run bench` sets side by side, each its own process with the harness's probe
// loaded (DynamoDB requests on the wire, CPU time, memory): `npm start`'s server exactly as a user
// runs it (tools/harness/local-server.ts: its npm script's command and flags, every default), with
// keys made as the key tool makes them, from this checkout or another (an earlier commit's worktree,
// with its own code); and the bare one-call servers (plain-bare-server.ts on plain dynalite, bare-server.ts
// on our embedded DynamoDB), started the same way, no flags.
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { readOwner } from '../../infra/local/data-dir.ts';
import { runningDynamoDB } from '../../infra/local/embedded-dynamodb.ts';
import { REPOSITORY_ROOT } from '../../infra/repository-root.ts';
import { keysTable } from '../../shared/dynamodb/tables.ts';
import { disposeServer, type LocalServer, startLocalServer } from '../../tools/harness/local-server.ts';
import type { Probe } from '../../tools/harness/probe-client.ts';

/** Stopped with the harness's disposeServer. Its base URL ends in /v1; `keys`: its requests take turns with them. */
export type BenchServer = LocalServer & { probe: Probe; dynamodbEndpoint: string; keys: string[] };

/** BENCH_CPU_PROF=dir writes each server's V8 CPU profile there; BENCH_NODE_ARGS: Node's flags for every server, space-separated. */
const nodeArgs = [
  ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
  ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
];
const benchServer = (server: LocalServer, dynamodbEndpoint: string, keys: string[]): BenchServer => ({
  ...server,
  ...{ probe: server.probe!, dynamodbEndpoint, keys },
});

/** `npm start` on its defaults plus `env`, from the checkout at `root`, with its key and `keyCount - 1` more. */
export const startUserServer = async (env: Record<string, string> = {}, root = REPOSITORY_ROOT, keyCount = 1) => {
  const server = await startLocalServer(env, { defaults: true, probe: true, keepOutput: false, nodeArgs, cwd: root });
  // An earlier checkout's store took no credential and recorded its URL as dynamodbEndpoint.
  const owner = readOwner(server.dataDir) as { dynamodbEndpoint?: string } | undefined;
  const dynamodbEndpoint = runningDynamoDB(server.dataDir) ?? owner?.dynamodbEndpoint;
  if (!dynamodbEndpoint) throw new Error('the server did not record its DynamoDB endpoint');
  // The checkout's own key code: its key records are what its authorizer reads.
  const from = (path: string) => import(pathToFileURL(join(root, path)).href);
  const { createKeysRepository } = await from('shared/dynamodb/keys-repository.ts');
  const { localClientConfig } = await from('infra/local/function-environment.ts');
  const keys = createKeysRepository(
    DynamoDBDocumentClient.from(new DynamoDBClient(localClientConfig(dynamodbEndpoint))),
    keysTable.name,
  ) as { create(label: string): Promise<{ key: string }> };
  const made = Array.from({ length: keyCount - 1 }, async (_, i) => (await keys.create(`bench ${i}`)).key);
  return benchServer(server, dynamodbEndpoint, [server.key, ...(await Promise.all(made))]);
};

/**
 * Starts and stops `npm start` of the checkout at `root` once, with the probe, as the servers
 * measured run: a checkout whose compile-cache.mjs does not fill the cache itself (before it did)
 * then leaves every module the measured servers load in it, probe.ts too, and they load no
 * TypeScript stripper, as a user's later starts load none. A checkout that fills it, or has none, is
 * unchanged.
 */
export const warmCompileCache = async (root = REPOSITORY_ROOT): Promise<void> => {
  await disposeServer(await startLocalServer({}, { defaults: true, probe: true, keepOutput: false, cwd: root }));
};

/**
 * A bare one-call server, started as `npm start` is; it takes no key. `plain`: on plain dynalite
 * (plain-bare-server.ts, the independent floor); else on our embedded DynamoDB (bare-server.ts).
 */
export const startBareServer = async ({ plain = false } = {}) => {
  const entry = fileURLToPath(
    plain ? new URL('./plain-bare-server.ts', import.meta.url) : new URL('./bare-server.ts', import.meta.url),
  );
  const server = await startLocalServer({}, { defaults: true, probe: true, nodeArgs, entry });
  return benchServer(server, /DynamoDB at (\S+)/.exec(server.output())![1]!, []);
};
