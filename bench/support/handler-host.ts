// One Lambda execution environment, for the handler benchmarks (handler-bench.ts): imports a
// bundle as the runtime does at init, then on request runs its handler warm, one invocation after
// another as on-demand Lambda does, and answers with the CPU time and wall times taken. Its first
// message times the import (the cold start adds the first invocation to it).
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { traceHeader } from '../../tools/harness/trace-header.ts';

type Handler = (event: unknown, context: unknown) => Promise<unknown>;
/** The parent's requests: run this many invocations, or stop. */
export type HostRequest = number | 'stop';
/** The host's first message, once the bundle is imported. */
export type Ready = { importMs: number; importCpuMs: number };
/** `failed`: what the last invocation answered if it was an error or a 4xx/5xx (the work was not done). */
export type RunResult = { cpuMs: number; wallMs: number[]; failed?: string };

const [file, exportName, eventJson] = process.argv.slice(2) as [string, string, string];
const event = JSON.parse(eventJson) as unknown;
/** CPU time, which other processes on a busy machine disturb far less than wall time. */
const cpuMs = (since: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
};
const [imported, importCpu] = [performance.now(), process.cpuUsage()];
const handler = ((await import(pathToFileURL(file).href)) as Record<string, Handler>)[exportName]!;
const [importMs, importCpuMs] = [performance.now() - imported, cpuMs(importCpu)];
const NAME = process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'bench';
const context = () => ({
  callbackWaitsForEmptyEventLoop: true,
  functionName: NAME,
  functionVersion: '$LATEST',
  invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${NAME}`,
  memoryLimitInMB: '1024',
  awsRequestId: randomUUID(),
  logGroupName: `/aws/lambda/${NAME}`,
  logStreamName: 'bench',
  getRemainingTimeInMillis: () => 10_000,
});

/**
 * With active tracing, Lambda gives each invocation its own trace header, sampled or not
 * (BENCH_TRACE, set by the benchmark for its tracing rounds; unset, no header, as with tracing off).
 */
const TRACE = process.env.BENCH_TRACE;
const invoke = (input: unknown) => {
  if (TRACE) process.env._X_AMZN_TRACE_ID = traceHeader(TRACE === 'sampled').header;
  return handler(input, context()).catch((error: Error) => ({ error: error.message }));
};

const run = async (invocations: number): Promise<RunResult> => {
  // A fresh event per invocation, as the runtime parses each anew, made before the clock starts.
  const events = Array.from({ length: invocations }, () => structuredClone(event));
  const wallMs: number[] = [];
  let last: { statusCode?: number; error?: string } = {};
  const cpu = process.cpuUsage();
  for (const input of events) {
    const begun = performance.now();
    last = (await invoke(input)) as typeof last;
    wallMs.push(performance.now() - begun);
  }
  const failed = last.error !== undefined || (last.statusCode ?? 0) >= 400;
  return { cpuMs: cpuMs(cpu), wallMs, ...(failed && { failed: JSON.stringify(last) }) };
};

// One answer per request, in order: the parent sends the next request once it has the answer.
process.on('message', async (message: HostRequest) => {
  if (message === 'stop') process.exit(0);
  process.send!(await run(message));
});
process.send!({ importMs, importCpuMs } satisfies Ready);
