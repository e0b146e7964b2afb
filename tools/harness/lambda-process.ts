// A bundled function run as Lambda runs it, for the tests of synthesized bundles and the handler
// benchmarks: its bundle copied away from node_modules (only what is in it loads), imported in a
// fresh process (lambda-host.ts) with the environment the stack and Lambda give the function.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dynamodbEnvironment, LOCAL_AWS_ENV } from '../../infra/local/function-environment.ts';
import { type DeployedStage, stageSettings } from '../../infra/stages.ts';
import { tables } from '../../shared/dynamodb/tables.ts';
import { powertoolsEnvironment } from '../../shared/observability/metric-names.ts';
import type { HostRequest, Ready, RunResult } from './lambda-host.ts';

const HOST = fileURLToPath(new URL('./lambda-host.ts', import.meta.url));
const STAGE: DeployedStage = 'staging';

export interface LambdaProcessOptions {
  /** The bundle's directory: index.mjs and the chunks of its code splitting. */
  readonly bundle: string;
  /** The export to call: Lambda's `index.handler` unless named (the bench's floor holds one per function). */
  readonly exportName?: string;
  readonly functionName: string;
  /** The DynamoDB's URL, with its credential as user info when it checks one. */
  readonly dynamodbEndpoint: string;
  /** Active tracing: the X-Ray daemon's address, and whether Lambda samples the invocations. None: tracing off. */
  readonly tracing?: { readonly daemonAddress: string; readonly sampled: boolean } | undefined;
  /** More of the function's environment (its cursor secret's, say). */
  readonly environment?: Readonly<Record<string, string>>;
  /** Node's options: staging's `--enable-source-maps` (infra/stages.ts), or none. */
  readonly nodeOptions?: readonly string[];
  /** The version Lambda runs (AWS_LAMBDA_FUNCTION_VERSION and the context's functionVersion); `$LATEST` unless named. */
  readonly version?: string;
  /** Keep what the function writes (stdout and stderr, as Lambda files both in its log group); by default, dropped. */
  readonly captureOutput?: boolean;
  /**
   * A program that runs Node for the function, and its arguments, before Node's path and flags
   * (valgrind, to count the function's instructions: bench/support/instruction-counts.ts).
   */
  readonly launcher?: readonly [string, ...string[]];
}

/** What the stack sets (infra/constructs/functions.ts) and Lambda adds; logs and EMF metrics on, as deployed. */
const lambdaProcessEnvironment = (options: LambdaProcessOptions) => {
  const { functionName, dynamodbEndpoint, tracing, environment } = options;
  // By name, as deployed, where the SDK looks DynamoDB's endpoint up (with it, the first use of
  // libuv's thread pool).
  const endpoint = new URL(dynamodbEndpoint);
  if (endpoint.hostname === '127.0.0.1') endpoint.hostname = 'localhost';
  // Over TCP, as deployed: the local stage's Unix socket (infra/local/dynamodb-socket.ts) is no Lambda's.
  endpoint.searchParams.delete('socket');
  return {
    PATH: process.env.PATH,
    ...dynamodbEnvironment(endpoint.href),
    AWS_DEFAULT_REGION: LOCAL_AWS_ENV.AWS_REGION,
    AWS_LAMBDA_FUNCTION_NAME: `petstore-${STAGE}-${functionName}`,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(MEMORY_MB),
    AWS_LAMBDA_FUNCTION_VERSION: options.version ?? '$LATEST',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    ...powertoolsEnvironment(STAGE, 'INFO', tracing !== undefined),
    ...(tracing && {
      AWS_XRAY_DAEMON_ADDRESS: tracing.daemonAddress,
      AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
      LAMBDA_TASK_ROOT: '/var/task',
      _HANDLER: 'index.handler',
    }),
    ...Object.fromEntries(tables.map((table) => [table.envVar, table.name])),
    ...environment,
  };
};

/** The memory Lambda gives the function, as the stage's stack sets it. */
const MEMORY_MB = stageSettings[STAGE].memoryMb;

/**
 * Node's flags as Lambda's Node runtime starts it (the runtime's /var/runtime/bootstrap in AWS's
 * base images: `node --expose-gc --max-http-header-size 81920` with a young generation of a tenth
 * of the function's memory, half of it a semi-space, and the rest as the old generation), so that
 * the function's garbage is collected here as it is deployed.
 */
export const lambdaNodeFlags = (memoryMb = MEMORY_MB): string[] => {
  const newSpace = Math.floor(memoryMb / 10);
  return [
    '--expose-gc',
    '--max-http-header-size',
    '81920',
    `--max-semi-space-size=${Math.floor(newSpace / 2)}`,
    `--max-old-space-size=${memoryMb - newSpace}`,
  ];
};

/** `result` if every invocation of its run answered as its route does; else what failed, and how often. */
export const everyInvocationAnswered = (result: RunResult, label: string, invocations: number): RunResult => {
  if (result.failures === 0) return result;
  const first = JSON.stringify(result.firstFailure);
  throw new Error(`${label}: ${result.failures} of ${invocations} invocations failed, the first: ${first}`);
};

/** A fresh process holding the function, its bundle imported. Its log lines go nowhere, unless captured. */
export const startLambdaProcess = async (options: LambdaProcessOptions) => {
  const dir = mkdtempSync(join(tmpdir(), `petstore-${options.functionName}-`));
  cpSync(options.bundle, dir, { recursive: true });
  const trace = options.tracing && (options.tracing.sampled ? 'sampled' : 'unsampled');
  const child = fork(HOST, [join(dir, 'index.mjs'), options.exportName ?? 'handler', ...(trace ? [trace] : [])], {
    cwd: dir,
    env: lambdaProcessEnvironment(options),
    stdio: ['ignore', options.captureOutput ? 'pipe' : 'ignore', options.captureOutput ? 'pipe' : 'inherit', 'ipc'],
    ...(options.launcher && { execPath: options.launcher[0] }),
    execArgv: [
      ...(options.launcher ? [...options.launcher.slice(1), process.execPath] : []),
      ...lambdaNodeFlags(),
      ...(options.nodeOptions ?? []),
    ],
  });
  let output = '';
  for (const stream of [child.stdout, child.stderr])
    stream?.on('data', (chunk: Buffer) => {
      output += chunk;
    });
  const exited = once(child, 'exit').finally(() => rmSync(dir, { recursive: true, force: true }));
  const [ready] = await Promise.race([once(child, 'message'), exited]);
  if (child.exitCode !== null) throw new Error(`the host of ${options.bundle} exited with ${child.exitCode}`);
  return {
    ready: ready as Ready,
    /** The process's id (the launcher's, which runs Node in its own process). */
    pid: child.pid!,
    /** What the function wrote so far (with captureOutput). */
    output: () => output,
    /** Runs `event` `invocations` times one after another (the host answers each request with one message). */
    invoke: async (event: unknown, invocations = 1) => {
      child.send({ event, invocations } satisfies HostRequest);
      return ((await once(child, 'message')) as [RunResult])[0];
    },
    stop: async () => {
      child.send('stop' satisfies HostRequest);
      await exited;
    },
  };
};
