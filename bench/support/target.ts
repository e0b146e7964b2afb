// The process under test, forked by the benchmarks: the whole local stage (embedded
// DynamoDB, gateway, functions) and the baseline server side by side, so both are
// measured in the same process layout against the same DynamoDB. The parent drives
// it over IPC: DynamoDB request counts, memory samples, keys and cursors.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { startLocalStage } from '../../infra/local/stage.ts';
import { createCursorCodec } from '../../shared/domain/cursor.ts';
import { createDocumentClient, documentClient } from '../../shared/dynamodb/client.ts';
import { createKeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { keysTable, tableName } from '../../shared/dynamodb/tables.ts';
import { startBaselineServer } from './baseline.ts';
import type { TargetReady, TargetRequest } from './target-protocol.ts';

const send = (message: unknown) => process.send!(message);

const dataDir = mkdtempSync(join(tmpdir(), 'petstore-bench-'));
const stage = await startLocalStage({
  port: 0,
  host: '127.0.0.1',
  dataDir,
  authorizerCacheTtlSeconds: Number(process.env.BENCH_AUTHORIZER_CACHE_TTL),
  logLevel: process.env.BENCH_LOG_LEVEL ?? 'INFO',
  // Measure the server, not the stage's throttle: its token bucket still runs, it just never empties.
  throttle: { rate: 1e9, burst: 1e9 },
});

// Every request the functions make goes through this one client (shared/lambda/services.ts).
// The deserialize step runs once per HTTP attempt, retries included.
const requests: Record<string, number> = {};
documentClient().middlewareStack.add(
  (next, context) => async (args) => {
    const table = (args.input as { TableName?: string }).TableName ?? 'unknown';
    const key = `${context.commandName ?? 'unknown'} ${table}`;
    requests[key] = (requests[key] ?? 0) + 1;
    return next(args);
  },
  { step: 'deserialize', name: 'benchRequestCounter' },
);

const baseline = await startBaselineServer();
// The bench's own key and cursor work goes through a separate client: it is not counted.
const keys = createKeysRepository(createDocumentClient(), tableName(keysTable));
const cursors = createCursorCodec(process.env.CURSOR_SECRET!);

const gc = globalThis.gc ?? (() => undefined);

const handle = async (message: TargetRequest): Promise<unknown> => {
  switch (message.type) {
    case 'requests':
      return { ...requests };
    case 'memory':
      if (message.gc) {
        gc();
        gc();
      }
      return process.memoryUsage();
    case 'keys':
      return Promise.all(Array.from({ length: message.count }, async (_, i) => (await keys.create(`bench ${i}`)).key));
    case 'cpu': {
      const { user, system } = process.cpuUsage();
      return user + system;
    }
    case 'heapSnapshot':
      gc();
      return writeHeapSnapshot(message.path);
    case 'cursor':
      return cursors.encode({ after: message.after, status: message.status });
    case 'stop':
      await baseline.close();
      await stage.close();
      rmSync(dataDir, { recursive: true, force: true });
      setImmediate(() => process.exit(0));
      return null;
  }
};

process.on('message', (message: TargetRequest & { id: number }) => {
  void handle(message).then(
    (result) => send({ id: message.id, result }),
    (error: Error) => send({ id: message.id, error: error.message }),
  );
});

const ready: TargetReady = {
  type: 'ready',
  baseUrl: stage.baseUrl,
  baselineUrl: baseline.baseUrl,
  key: stage.key,
  dynamodbEndpoint: stage.dynamodbEndpoint,
  pid: process.pid,
};
send(ready);
