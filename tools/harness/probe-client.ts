// The parent's side of probe.ts: start a process with `--import PROBE` and an IPC
// channel (stdio's fourth entry 'ipc'), then ask it what it measured.
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The module to pass to `node --import`. */
export const PROBE = fileURLToPath(new URL('./probe.ts', import.meta.url));

type Question = { ask: 'dynamodbRequests' } | { ask: 'cpuMicros' } | { ask: 'memory'; gc: boolean };
export type ProbeQuestion = Question & { probe: number };
export interface ProbeAnswer {
  probe: number;
  result: unknown;
}

export interface Probe {
  /** Requests the process's embedded DynamoDB answered since start, by operation (`GetItem`…). */
  dynamodbRequests(): Promise<Record<string, number>>;
  /** User + system CPU time of the process since start, in microseconds. */
  cpuMicros(): Promise<number>;
  /** `process.memoryUsage()` and the peak RSS; with `gc`, after two full GCs (the process needs --expose-gc). */
  memory(gc: boolean): Promise<NodeJS.MemoryUsage & { maxRSS: number }>;
}

export const probeOf = (child: ChildProcess): Probe => {
  let next = 0;
  const ask = <T>(question: Question): Promise<T> =>
    new Promise((resolve, reject) => {
      const probe = next++;
      const onAnswer = (message: ProbeAnswer) => {
        if (message?.probe !== probe) return;
        child.off('message', onAnswer);
        resolve(message.result as T);
      };
      child.on('message', onAnswer);
      child.send({ ...question, probe } satisfies ProbeQuestion, (error) => error && reject(error));
    });
  return {
    dynamodbRequests: () => ask({ ask: 'dynamodbRequests' }),
    cpuMicros: () => ask({ ask: 'cpuMicros' }),
    memory: (gc) => ask({ ask: 'memory', gc }),
  };
};

/** `after − before` for every operation of two `dynamodbRequests()` snapshots. */
export const requestsBetween = (
  before: Record<string, number>,
  after: Record<string, number>,
): Record<string, number> =>
  Object.fromEntries(
    Object.entries(after)
      .map(([operation, n]) => [operation, n - (before[operation] ?? 0)] as const)
      .filter(([, n]) => n > 0),
  );
