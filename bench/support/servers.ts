// The two servers `npm run bench` sets side by side, each its own process with probe.ts
// loaded (tools/harness), which counts the DynamoDB requests each one's embedded DynamoDB
// answers, on the wire, and reads its CPU time:
// - the local server exactly as `npm start` runs it (`node infra/local/server.ts`, the
//   caller's environment minus every knob of ours, so every default holds), on a fresh data
//   directory, with a key per connection made as the key tool makes them;
// - the bare one-call server (bare-server.ts).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { runningDynamoDB } from '../../infra/local/embedded-dynamodb.ts';
import { localClientConfig } from '../../infra/local/function-environment.ts';
import { createKeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { keysTable } from '../../shared/dynamodb/tables.ts';
import { disposeServer, startLocalServer } from '../../tools/harness/local-server.ts';
import { PROBE, type Probe, probeOf } from '../../tools/harness/probe-client.ts';

export interface BenchServer {
  /** Ends in /v1 for both. */
  baseUrl: string;
  dynamodbEndpoint: string;
  probe: Probe;
  stop(): Promise<void>;
}

/** BENCH_CPU_PROF=dir writes each server's V8 CPU profile there. */
const profile = () =>
  process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];

/** `npm start` on its defaults; `keys(n)` makes n new keys. */
export const startUserServer = async (): Promise<BenchServer & { key: string; keys(n: number): Promise<string[]> }> => {
  const server = await startLocalServer({}, { defaults: true, probe: true, keepOutput: false, nodeArgs: profile() });
  const dynamodbEndpoint = runningDynamoDB(server.dataDir);
  if (!dynamodbEndpoint) throw new Error('the server did not record its DynamoDB endpoint');
  const keys = createKeysRepository(
    DynamoDBDocumentClient.from(new DynamoDBClient(localClientConfig(dynamodbEndpoint))),
    keysTable.name,
  );
  return {
    baseUrl: server.baseUrl,
    key: server.key,
    dynamodbEndpoint,
    probe: server.probe!,
    keys: (n) => Promise.all(Array.from({ length: n }, async (_, i) => (await keys.create(`bench ${i}`)).key)),
    stop: () => disposeServer(server),
  };
};

export const startBareServer = async (): Promise<BenchServer> => {
  const script = fileURLToPath(new URL('./bare-server.ts', import.meta.url));
  const child = spawn(process.execPath, [...profile(), '--import', PROBE, script], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  const ready = await new Promise<string[]>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const found = [/listening at (\S+)/, /DynamoDB at (\S+)/].map((pattern) => pattern.exec(output)?.[1]);
      if (found.every(Boolean)) resolve(found as string[]);
    });
    void exited.then(() => reject(new Error(`the bare server exited before it was ready:\n${output}`)));
  });
  return {
    baseUrl: ready[0]!,
    dynamodbEndpoint: ready[1]!,
    probe: probeOf(child),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
};
