// Each Lambda handler alone, warm, in its own process, against the floor (bench/floor/
// handlers.ts): both bundled as the stack bundles them, both talking to the same embedded
// DynamoDB, which runs in this process so that its CPU is counted on neither side. The
// two take turns, round after round; a ratio is the median of the rounds' ratios.
import { fork } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureTables, startEmbeddedDynamoDB } from '../../infra/local/embedded-dynamodb.ts';
import { dynamodbEnvironment, LOCAL_AWS_ENV } from '../../infra/local/function-environment.ts';
import { REPOSITORY_ROOT } from '../../infra/repository-root.ts';
import { FUNCTION_NAMES, type FunctionName } from '../../shared/api/routes.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { createKeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { keysTable, tables } from '../../shared/dynamodb/tables.ts';
import { CURSOR_SECRET_ARN_ENV } from '../../shared/lambda/cursor-secret.ts';
import { powertoolsEnvironment } from '../../shared/observability/metric-names.ts';
import { listenOnLoopback } from '../../tools/harness/loopback.ts';
import { buildBundle, ENTRIES } from './bundles.ts';
import { proxyEvent, tokenEvent } from './handler-events.ts';
import type { HostRequest, Ready, RunResult } from './handler-host.ts';
import { SEED_FIRST_ID, seedPets } from './seed.ts';
import { atMost, cells, median, percentile, ratio, round, type Target, table } from './stats.ts';

/**
 * Off: the function with the stage's tracing switch off. Sampled and unsampled: the same bundle
 * with it on, as both stages deploy it, each invocation under a trace header that Lambda sampled or did not.
 */
export type Tracing = 'off' | 'sampled' | 'unsampled';
/** The stage's Node settings, on both sides alike: staging's `--enable-source-maps` (infra/stages.ts) or not. */
export type Settings = 'production' | 'staging';
const NODE_OPTIONS_OF: Record<Settings, string[]> = { production: [], staging: ['--enable-source-maps'] };
/** CPU per invocation ÷ the floor's, with the stage's tracing on (issue 22); off, the function's own. */
const TARGETS: Record<Tracing, number> = { off: 1.15, sampled: 1.3, unsampled: 1.15 };
const HOST = fileURLToPath(new URL('./handler-host.ts', import.meta.url));
const FLOOR_ENTRY = fileURLToPath(new URL('../floor/handlers.ts', import.meta.url));

/**
 * A floor that loaded the service's validation (zod, the schemas) would import slower than a bare
 * handler does, and flatter every cold-start ratio: its bundle must hold the SDK and nothing of ours
 * but the table names and the create's write.
 */
const assertBare = (bundle: string): void => {
  const { sources } = JSON.parse(readFileSync(`${bundle}.map`, 'utf8')) as { sources: string[] };
  const ours = sources.filter((source) =>
    /node_modules\/zod\/|shared\/(api|domain|lambda|observability)\//.test(source),
  );
  if (ours.length > 0) throw new Error(`the floor bundles the service's code: ${ours.join(', ')}`);
};

/** The embedded DynamoDB with 1,000 animals and one key, the bundles, the events and each function's environment. */
export const prepareHandlerBench = async () => {
  const out = join(REPOSITORY_ROOT, 'cdk.out', 'bench-handlers');
  const floor = await buildBundle(FLOOR_ENTRY, join(out, 'floor'));
  assertBare(floor);
  const work = mkdtempSync(join(tmpdir(), 'petstore-handlers-'));
  const dynamodb = await startEmbeddedDynamoDB(work);
  await ensureTables(dynamodb.endpoint);
  await seedPets(dynamodb.endpoint, 1_000);
  Object.assign(process.env, dynamodbEnvironment(dynamodb.endpoint));
  const { key, keyId } = await createKeysRepository(createDocumentClient(), keysTable.name).create('handler bench');
  const files = await Promise.all(FUNCTION_NAMES.map((name) => buildBundle(ENTRIES[name], join(out, name))));
  const built = Object.fromEntries(FUNCTION_NAMES.map((name, i) => [name, files[i]!])) as Record<FunctionName, string>;
  const events: Record<FunctionName, unknown> = {
    getPet: proxyEvent('getPet', keyId, { pathParameters: { petId: String(SEED_FIRST_ID + 42) } }),
    listPets: proxyEvent('listPets', keyId, { query: { limit: '20' } }),
    createPet: proxyEvent('createPet', keyId),
    authorizer: tokenEvent(key),
  };
  // A stand-in for the X-Ray daemon: it only counts, to check the sampled rounds traced and the others did not.
  const daemon = createSocket('udp4');
  let segments = 0;
  daemon.on('message', () => segments++);
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
  const xray = {
    AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${(daemon.address() as AddressInfo).port}`,
    AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
    LAMBDA_TASK_ROOT: '/var/task',
    _HANDLER: 'index.handler',
  };
  // A stand-in for the Parameters and Secrets extension's endpoint, from which listPets reads its
  // cursor secret as deployed (shared/lambda/cursor-secret.ts): its first invocation makes that call.
  const SESSION_TOKEN = 'bench-session-token';
  const extension = await listenOnLoopback(
    createServer((request, response) => {
      if (request.headers['x-aws-parameters-secrets-token'] !== SESSION_TOKEN) return response.writeHead(401).end();
      response.end(JSON.stringify({ SecretString: 'bench-cursor-secret-0123456789abcdef' }));
    }),
  );
  const secretFromExtension = {
    [CURSOR_SECRET_ARN_ENV]: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:CursorSecret1-bench',
    PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: new URL(extension.endpoint).port,
    AWS_SESSION_TOKEN: SESSION_TOKEN,
  };
  // What the stack sets (infra/constructs/functions.ts) and Lambda adds; logs and EMF metrics on, as deployed.
  const environment = (name: FunctionName, tracing: Tracing): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    // By name, as deployed, where the SDK looks DynamoDB's endpoint up: both sides pay a lookup
    // (with it, the first use of libuv's thread pool), as does listPets' call to its secrets extension.
    ...dynamodbEnvironment(dynamodb.endpoint.replace('@127.0.0.1:', '@localhost:')),
    AWS_DEFAULT_REGION: LOCAL_AWS_ENV.AWS_REGION,
    AWS_LAMBDA_FUNCTION_NAME: `petstore-staging-${name}`,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    ...powertoolsEnvironment('staging', 'INFO', tracing !== 'off'),
    ...(tracing !== 'off' && { ...xray, BENCH_TRACE: tracing }),
    ...Object.fromEntries(tables.map((table) => [table.envVar, table.name])),
    ...(name === 'listPets' && secretFromExtension),
  });
  return {
    /** A fresh host of `name`'s function (this build, or `file`) or of its floor, with its event and environment. */
    host: (name: FunctionName, side: 'floor' | 'function', tracing: Tracing, settings: Settings, file = built[name]) =>
      side === 'floor'
        ? startHost(floor, name, events[name], environment(name, tracing), settings)
        : startHost(file, 'handler', events[name], environment(name, tracing), settings),
    /** Segments the functions sent to the X-Ray daemon's address so far. */
    segmentsSent: () => segments,
    close: async () => {
      daemon.close();
      await extension.close();
      await dynamodb.close();
      rmSync(work, { recursive: true, force: true });
    },
  };
};
type BenchEnvironment = Awaited<ReturnType<typeof prepareHandlerBench>>;

/** A fresh process holding one handler: `exportName` of `file`. Its log lines go nowhere we read. */
const startHost = async (
  file: string,
  exportName: string,
  event: unknown,
  env: NodeJS.ProcessEnv,
  settings: Settings,
) => {
  const args = [file, exportName, JSON.stringify(event)];
  const child = fork(HOST, args, {
    env,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execArgv: NODE_OPTIONS_OF[settings],
  });
  const exited = once(child, 'exit');
  const [ready] = await Promise.race([once(child, 'message'), exited]);
  if (child.exitCode !== null) throw new Error(`handler host for ${file} exited with ${child.exitCode}`);
  return {
    ready: ready as Ready,
    /** Runs `invocations` one after another (the host answers each request with one message); throws if the last failed. */
    run: async (invocations: number) => {
      child.send(invocations satisfies HostRequest);
      const [result] = (await once(child, 'message')) as [RunResult];
      if (result.failed) throw new Error(`${exportName} of ${file} failed: ${result.failed}`);
      return result;
    },
    stop: async () => {
      child.send('stop' satisfies HostRequest);
      await exited;
    },
  };
};

/** Rounds of invocations per function; which functions (all by default), under which settings and tracing. */
export const HANDLER_RUN = {
  rounds: Number(process.env.HANDLER_ROUNDS ?? 7),
  invocationsPerRound: Number(process.env.HANDLER_INVOCATIONS ?? 400),
  warmupInvocations: 300,
  only: undefined as readonly string[] | undefined,
  settings: ['production'] as readonly Settings[],
  tracing: ['off'] as readonly Tracing[],
};
type HandlerRun = typeof HANDLER_RUN;

/** One function against the floor, warm, in alternating rounds. */
const measureHandler = async (
  env: BenchEnvironment,
  name: FunctionName,
  tracing: Tracing,
  settings: Settings,
  o: HandlerRun,
) => {
  const sides = await Promise.all([
    env.host(name, 'floor', tracing, settings),
    env.host(name, 'function', tracing, settings),
  ]);
  const segmentsBefore = env.segmentsSent();
  try {
    for (const side of sides) await side.run(o.warmupInvocations);
    /** Per round, the floor's figures and the function's: CPU ms per invocation, p50 and p99 ms. */
    const rounds: Array<Array<Record<'cpu' | 'p50' | 'p99', number>>> = [];
    for (let r = 0; r < o.rounds; r++) {
      rounds.push([]);
      for (const i of r % 2 === 0 ? [0, 1] : [1, 0]) {
        const result = await sides[i]!.run(o.invocationsPerRound);
        const sorted = result.wallMs.sort((a, b) => a - b);
        const cpu = result.cpuMs / o.invocationsPerRound;
        rounds[r]![i] = { cpu, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
      }
    }
    // A UDP datagram may still be on its way: a moment for the last ones, then the check.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const invocations = o.warmupInvocations + o.rounds * o.invocationsPerRound;
    const segments = env.segmentsSent() - segmentsBefore;
    if (tracing === 'sampled' ? segments < invocations : segments > 0)
      throw new Error(`${name} with tracing ${tracing}: ${segments} segments sent for ${invocations} invocations`);
    const ratios = (figure: 'cpu' | 'p50' | 'p99') => rounds.map(([floor, own]) => ratio(own![figure], floor![figure]));
    const cpuMs = (side: number) => round(median(rounds.map((figures) => figures[side]!.cpu)), 3);
    return {
      ...{ function: name, tracing, settings },
      /** Medians over rounds, per invocation; a ratio is the median over rounds of function ÷ floor. */
      ...{ cpuMs: cpuMs(1), floorCpuMs: cpuMs(0), cpuRatio: median(ratios('cpu')) },
      ...{ p50Ratio: median(ratios('p50')), p99Ratio: median(ratios('p99')), cpuRatioPerRound: ratios('cpu') },
    };
  } finally {
    await Promise.all(sides.map((side) => side.stop()));
  }
};
export type HandlerFigures = Awaited<ReturnType<typeof measureHandler>>;

/** Every function (or those named in `only`) against the floor, one after another, under each settings and tracing. */
export const measureHandlers = async (run: HandlerRun, log: (message: string) => void = console.error) => {
  const env = await prepareHandlerBench();
  const figures: HandlerFigures[] = [];
  try {
    for (const name of FUNCTION_NAMES.filter((f) => !run.only || run.only.includes(f)))
      for (const settings of run.settings)
        for (const tracing of run.tracing) {
          log(`measuring ${name} alone against the floor, ${settings} settings, tracing ${tracing}`);
          figures.push(await measureHandler(env, name, tracing, settings, run));
        }
  } finally {
    await env.close();
  }
  return figures;
};

export const handlersTable = (figures: readonly HandlerFigures[]): string =>
  table([
    'function|settings|tracing|CPU ms/inv|floor|CPU ratio|p50 ratio|p99 ratio|CPU ratio per round'.split('|'),
    ...figures.map((f) => [
      ...cells(f, 'function settings tracing cpuMs floorCpuMs cpuRatio p50Ratio p99Ratio'),
      f.cpuRatioPerRound.join(' '),
    ]),
  ]);

export const handlerTargets = (figures: readonly HandlerFigures[]): Target[] =>
  figures.map((f) =>
    atMost(
      `${f.function} alone, ${f.settings}, tracing ${f.tracing}: CPU/inv. ÷ floor`,
      f.cpuRatio,
      TARGETS[f.tracing],
    ),
  );
