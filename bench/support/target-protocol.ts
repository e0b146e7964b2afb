// Messages between a benchmark and its target process (target.ts), and the parent's side.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { PetStatus } from '../../shared/api/schemas.ts';

export type TargetRequest =
  | { type: 'requests' }
  | { type: 'memory'; gc: boolean }
  | { type: 'cpu' }
  | { type: 'heapSnapshot'; path: string }
  | { type: 'keys'; count: number }
  | { type: 'cursor'; after: number; status: PetStatus | null }
  | { type: 'stop' };

export interface TargetReady {
  type: 'ready';
  /** The local stage, e.g. http://127.0.0.1:1234/v1. */
  baseUrl: string;
  /** The baseline server: same paths below it as below baseUrl. */
  baselineUrl: string;
  key: string;
  dynamodbEndpoint: string;
  pid: number;
}

export interface Target extends TargetReady {
  /** DynamoDB requests the functions and the baseline made so far, by `Command table`. */
  requests(): Promise<Record<string, number>>;
  memory(gc: boolean): Promise<NodeJS.MemoryUsage>;
  /** CPU time the target process used so far (user + system, all threads), in microseconds. */
  cpu(): Promise<number>;
  /** Writes a heap snapshot of the target (after GC) to `path`, for finding what grows. */
  heapSnapshot(path: string): Promise<string>;
  keys(count: number): Promise<string[]>;
  cursor(after: number, status: PetStatus | null): Promise<string>;
  stop(): Promise<void>;
}

export interface TargetOptions {
  authorizerCacheTtlSeconds: number;
  logLevel?: string;
  /** Writes a V8 CPU profile of the target into this directory when it stops. */
  cpuProfileDir?: string | undefined;
}

export const startTarget = (options: TargetOptions): Promise<Target> => {
  const execArgv = [
    '--expose-gc',
    ...(options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] : []),
  ];
  const child = fork(fileURLToPath(new URL('./target.ts', import.meta.url)), [], {
    execArgv,
    env: {
      ...process.env,
      BENCH_AUTHORIZER_CACHE_TTL: String(options.authorizerCacheTtlSeconds),
      BENCH_LOG_LEVEL: options.logLevel ?? 'INFO',
    },
    // The functions' log lines go where Lambda's would go: nowhere we read.
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  let nextId = 0;
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  const call = <T>(message: TargetRequest): Promise<T> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      child.send({ ...message, id });
    });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the target process exited with ${code} before it was ready`)));
    child.on('message', (message: { id?: number; result?: unknown; error?: string; type?: string }) => {
      if (message.type === 'ready') {
        resolve({
          ...(message as TargetReady),
          requests: () => call({ type: 'requests' }),
          memory: (gc) => call({ type: 'memory', gc }),
          cpu: () => call({ type: 'cpu' }),
          heapSnapshot: (path) => call({ type: 'heapSnapshot', path }),
          keys: (count) => call({ type: 'keys', count }),
          cursor: (after, status) => call({ type: 'cursor', after, status }),
          stop: async () => {
            await call({ type: 'stop' });
            await exited;
          },
        });
        return;
      }
      const waiter = pending.get(message.id!);
      pending.delete(message.id!);
      if (message.error !== undefined) waiter?.reject(new Error(message.error));
      else waiter?.resolve(message.result);
    });
  });
};

/** `after − before` for every key of two request-count snapshots. */
export const countDelta = (before: Record<string, number>, after: Record<string, number>): Record<string, number> =>
  Object.fromEntries(
    Object.entries(after)
      .map(([key, value]) => [key, value - (before[key] ?? 0)] as const)
      .filter(([, value]) => value > 0),
  );
