// One Lambda execution environment, as Lambda's Node runtime runs a function: a process of its own
// (lambda-process.ts starts it in the function's environment) that imports a bundle at init, then on
// request runs its handler, one invocation after another as on-demand Lambda does, each with a
// Lambda context and, under active tracing, a trace header of its own. It answers with the last
// answer, how many of the run's invocations failed and the first failure, and the CPU and wall
// times taken; its first message times the import, which the handler benchmarks measure: so it
// imports nothing the bundle will (trace-header.ts imports nothing; Node loads node:url before any
// module).
import { pathToFileURL } from 'node:url';
import { traceHeader } from './trace-header.ts';

type Handler = (event: unknown, context: unknown) => Promise<unknown>;
/** The parent's requests: run `event` this many times, or stop. */
export type HostRequest = { event: unknown; invocations: number } | 'stop';
/** The host's first message, once the bundle is imported. */
export type Ready = { importMs: number; importCpuMs: number; execArgv: string[] };
/**
 * `cpuMs`: the process's CPU, V8's worker threads (its concurrent compilers, its parallel and
 * concurrent collector) included; `mainCpuMs`: the main thread's alone. `answer`: the last
 * invocation's (`{ error }` if it threw); `failures`: how many of the run's answers were an error
 * or a status of 400 or more, and `firstFailure` the first of them, so that a fault or a timeout in
 * the middle of a measured run (a valgrind run on a loaded machine met some) is not counted as an
 * invocation like the others; `trace`: the last trace header, under active tracing.
 */
export type RunResult = {
  cpuMs: number;
  mainCpuMs: number;
  wallMs: number[];
  answer: unknown;
  failures: number;
  firstFailure?: unknown;
  trace?: ReturnType<typeof traceHeader>;
};

/** The bundle's entry, its export, and `sampled` or `unsampled` under active tracing (none: tracing off). */
const [file, exportName, tracing] = process.argv.slice(2) as [string, string, string | undefined];
/** CPU time, which other processes on a busy machine disturb far less than wall time. */
const ms = ({ user, system }: NodeJS.CpuUsage) => (user + system) / 1000;
const cpuMs = (since: NodeJS.CpuUsage) => ms(process.cpuUsage(since));
const [imported, importCpu] = [performance.now(), process.cpuUsage()];
const handler = ((await import(pathToFileURL(file).href)) as Record<string, Handler>)[exportName]!;
const [importMs, importCpuMs] = [performance.now() - imported, cpuMs(importCpu)];
const {
  AWS_LAMBDA_FUNCTION_NAME: NAME,
  AWS_REGION: REGION,
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: MEMORY,
  AWS_LAMBDA_FUNCTION_VERSION: VERSION = '$LATEST',
} = process.env;
const context = () => ({
  callbackWaitsForEmptyEventLoop: true,
  functionName: NAME,
  functionVersion: VERSION,
  // As API Gateway invokes it: through the `live` alias, which names this version.
  invokedFunctionArn: `arn:aws:lambda:${REGION}:000000000000:function:${NAME}${VERSION === '$LATEST' ? '' : ':live'}`,
  memoryLimitInMB: MEMORY,
  awsRequestId: crypto.randomUUID(),
  logGroupName: `/aws/lambda/${NAME}`,
  logStreamName: 'host',
  getRemainingTimeInMillis: () => 10_000,
});

// With active tracing, Lambda gives each invocation its own trace header, sampled or not.
let trace: ReturnType<typeof traceHeader> | undefined;
const invoke = (input: unknown) => {
  if (tracing) {
    trace = traceHeader(tracing === 'sampled');
    process.env._X_AMZN_TRACE_ID = trace.header;
  }
  return handler(input, context()).catch((error: Error) => ({ error: error.message }));
};

/** An answer that is not the route's: the handler threw, or answered an HTTP error. */
const failed = (answer: unknown) =>
  typeof answer === 'object' &&
  answer !== null &&
  ('error' in answer || ('statusCode' in answer && (answer.statusCode as number) >= 400));

const run = async ({ event, invocations }: Exclude<HostRequest, 'stop'>): Promise<RunResult> => {
  // A fresh event per invocation, as the runtime parses each anew, made before the clock starts.
  const events = Array.from({ length: invocations }, () => structuredClone(event));
  const wallMs: number[] = [];
  let answer: unknown;
  let failures = 0;
  let firstFailure: unknown;
  const [cpu, mainCpu] = [process.cpuUsage(), process.threadCpuUsage()];
  for (const input of events) {
    const begun = performance.now();
    answer = await invoke(input);
    wallMs.push(performance.now() - begun);
    if (failed(answer) && failures++ === 0) firstFailure = answer;
  }
  const [cpuUsed, mainCpuUsed] = [process.cpuUsage(cpu), process.threadCpuUsage(mainCpu)];
  return {
    cpuMs: ms(cpuUsed),
    mainCpuMs: ms(mainCpuUsed),
    wallMs,
    answer,
    failures,
    ...(failures > 0 && { firstFailure }),
    ...(trace && { trace }),
  };
};

// One answer per request, in order: the parent sends the next request once it has the answer.
process.on('message', async (message: HostRequest) => {
  if (message === 'stop') process.exit(0);
  process.send!(await run(message));
});
process.send!({ importMs, importCpuMs, execArgv: process.execArgv } satisfies Ready);
