// The two servers `npm run bench` sets side by side, each its own process:
// - the local server exactly as `npm start` runs it: `node infra/local/server.ts` with the
//   user's environment minus every knob of ours (so every default holds), PORT=0 and a fresh
//   data directory; its output goes to a file, as to a terminal, for counting log lines;
// - the bare one-call server (bare-server.ts) on its own embedded DynamoDB.
// Both report the DynamoDB requests their embedded DynamoDB answered (counted on the wire)
// and their CPU time: the server through its management endpoint, the bare one at /__stats.
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { readOwner } from '../../infra/local/data-dir.ts';
import { runningDynamoDB } from '../../infra/local/embedded-dynamodb.ts';
import { localClientConfig } from '../../infra/local/function-environment.ts';
import { type ManagementStats, readStats } from '../../infra/local/management.ts';
import { createKeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { keysTable } from '../../shared/dynamodb/tables.ts';

const REPOSITORY_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Settings of ours a user's shell might hold; `npm start` must run on its defaults. */
const OUR_KNOBS = /^(PETSTORE_|POWERTOOLS_|AWS_|LOG_LEVEL$|PORT$|HOST$|NODE_OPTIONS$)/;

export interface ServerProcess {
  baseUrl: string;
  dynamodbEndpoint: string;
  pid: number;
  requests(): Promise<Record<string, number>>;
  cpu(): Promise<number>;
  stop(): Promise<void>;
}

export interface UserServer extends ServerProcess {
  /** The key `npm start` printed. */
  key: string;
  /** New keys, made as the key tool makes them. */
  keys(count: number): Promise<string[]>;
  /** Lines and bytes the server printed so far. */
  output(): { lines: number; bytes: number };
}

const waitFor = async <T>(what: string, check: () => T | undefined, timeoutMs = 60_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

const exitOf = (child: ChildProcess) => new Promise<void>((resolve) => child.once('exit', () => resolve()));

/** `npm start`, as a user starts it. BENCH_CPU_PROF=dir writes its V8 CPU profile there. */
export const startUserServer = async (): Promise<UserServer> => {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-bench-server-'));
  const dataDir = join(dir, 'data');
  const outputFile = join(dir, 'output.log');
  const out = openSync(outputFile, 'w');
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !OUR_KNOBS.test(name)));
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...profile, 'infra/local/server.ts'], {
    cwd: REPOSITORY_ROOT,
    env: { ...env, PORT: '0', PETSTORE_DATA_DIR: dataDir },
    stdio: ['ignore', out, 'inherit'],
  });
  closeSync(out);
  const exited = exitOf(child);
  const text = () => readFileSync(outputFile, 'utf8');
  const banner = await waitFor('npm start to print its address and key', () => {
    const output = text();
    const baseUrl = /listening at (http\S+)/.exec(output)?.[1];
    const key = /API key \([^)]*\): (pet_\w+)/.exec(output)?.[1];
    return baseUrl && key ? { baseUrl, key } : undefined;
  });
  const owner = readOwner(dataDir);
  const dynamodbEndpoint = runningDynamoDB(dataDir);
  if (!dynamodbEndpoint || !owner?.managementEndpoint) throw new Error('the server did not record its endpoints');
  const { managementEndpoint } = owner;
  const stats = (): Promise<ManagementStats> => readStats(dataDir, managementEndpoint);
  const keyStore = createKeysRepository(
    DynamoDBDocumentClient.from(new DynamoDBClient(localClientConfig(dynamodbEndpoint))),
    keysTable.name,
  );
  return {
    ...banner,
    dynamodbEndpoint,
    pid: child.pid!,
    requests: async () => (await stats()).dynamodbRequests,
    cpu: async () => (await stats()).cpuMicros,
    keys: (count) =>
      Promise.all(Array.from({ length: count }, async (_, i) => (await keyStore.create(`bench ${i}`)).key)),
    output: () => {
      const bytes = statSync(outputFile).size;
      return { lines: text().split('\n').length - 1, bytes };
    },
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

/** The bare one-call server (bare-server.ts). */
export const startBareServer = async (): Promise<ServerProcess> => {
  const child = fork(fileURLToPath(new URL('./bare-server.ts', import.meta.url)), [], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execArgv: process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [],
  });
  const exited = exitOf(child);
  const ready = await new Promise<{ baseUrl: string; dynamodbEndpoint: string }>((resolve, reject) => {
    child.once('message', resolve as (message: unknown) => void);
    child.once('exit', (code) => reject(new Error(`the bare server exited with ${code} before it was ready`)));
  });
  const stats = async (): Promise<ManagementStats> =>
    (await fetch(`${ready.baseUrl}/__stats`)).json() as Promise<ManagementStats>;
  return {
    ...ready,
    pid: child.pid!,
    requests: async () => (await stats()).dynamodbRequests,
    cpu: async () => (await stats()).cpuMicros,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
};
