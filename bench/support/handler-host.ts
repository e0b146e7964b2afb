// One Lambda execution environment, for bench/handlers.ts: imports a bundle as the
// runtime does at init, then on request runs its handler warm, one invocation after
// another as on-demand Lambda does, and answers with the CPU time and wall times taken.
// `{ type: 'first' }` times the import and the first invocation (bench/cold-start.ts).
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';

type Handler = (event: unknown, context: unknown) => Promise<unknown>;
export type HostRequest = { type: 'run'; invocations: number } | { type: 'first' } | { type: 'stop' };
export interface RunResult {
  cpuMicros: number;
  wallMs: number[];
  /** What the last invocation answered, to check the work was done. */
  last: unknown;
}

const [file, exportName, eventJson] = process.argv.slice(2) as [string, string, string];
const event = JSON.parse(eventJson) as unknown;
const imported = performance.now();
const importCpu = process.cpuUsage();
const module = (await import(pathToFileURL(file).href)) as Record<string, Handler>;
const importMs = performance.now() - imported;
/** CPU time, which other processes on a busy machine disturb far less than wall time. */
const cpuMs = (since: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
};
const importCpuMs = cpuMs(importCpu);
const handler = module[exportName]!;
const FUNCTION_NAME = process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'bench';

const context = () => {
  const deadline = Date.now() + 10_000;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: FUNCTION_NAME,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${FUNCTION_NAME}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${FUNCTION_NAME}`,
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => deadline - Date.now(),
  };
};

/**
 * With active tracing, Lambda gives each invocation its own trace header, sampled or not
 * (BENCH_TRACE, set by the benchmark for its tracing rounds; unset, no header, as with tracing off).
 */
const TRACE = process.env.BENCH_TRACE;
const traceHeader = () =>
  `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomUUID().replaceAll('-', '').slice(0, 24)};` +
  `Parent=${randomUUID().replaceAll('-', '').slice(0, 16)};Sampled=${TRACE === 'sampled' ? 1 : 0}`;

const invoke = (input = structuredClone(event)) => {
  if (TRACE) process.env._X_AMZN_TRACE_ID = traceHeader();
  return handler(input, context());
};

const run = async (invocations: number): Promise<RunResult> => {
  // A fresh event per invocation, as the runtime parses each anew, made before the clock starts.
  const events = Array.from({ length: invocations }, () => structuredClone(event));
  const wallMs: number[] = [];
  let last: unknown;
  const cpu = process.cpuUsage();
  for (let i = 0; i < invocations; i++) {
    const begun = performance.now();
    try {
      last = await invoke(events[i]);
    } catch (error) {
      last = { error: (error as Error).message };
    }
    wallMs.push(performance.now() - begun);
  }
  const { user, system } = process.cpuUsage(cpu);
  return { cpuMicros: user + system, wallMs, last };
};

process.on('message', async (message: HostRequest & { id: number }) => {
  switch (message.type) {
    case 'run':
      process.send!({ id: message.id, result: await run(message.invocations) });
      return;
    case 'first': {
      const begun = performance.now();
      const cpu = process.cpuUsage();
      const last = await invoke().catch((error: Error) => ({ error: error.message }));
      const firstMs = performance.now() - begun;
      process.send!({ id: message.id, result: { importMs, firstMs, cpuMs: importCpuMs + cpuMs(cpu), last } });
      return;
    }
    case 'stop':
      process.exit(0);
  }
});
process.send!({ type: 'ready' });
