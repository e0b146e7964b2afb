// The Lambda environment of the handler benchmarks (handler-bench.ts): each function and the floor
// (bench/floor/handlers.ts) bundled as the stack bundles them, a fresh process per side
// (handler-host.ts) with the environment the stack and Lambda give it; an embedded DynamoDB with
// 1,000 animals and a key, in this process so that its CPU counts on neither side; stand-ins for
// the X-Ray daemon and the Parameters and Secrets extension; and each function's event: its valid
// sample (tools/harness/sample-requests.ts) as API Gateway's REST proxy event (shared/lambda/
// proxy-event.ts, the local gateway's builder) with a regional stage's headers, or a TOKEN event.
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { lambdaBuildOptions } from '../../infra/constructs/bundled-function.ts';
import { ensureTables, startEmbeddedDynamoDB } from '../../infra/local/embedded-dynamodb.ts';
import { dynamodbEnvironment, LOCAL_AWS_ENV } from '../../infra/local/function-environment.ts';
import { REPOSITORY_ROOT } from '../../infra/repository-root.ts';
import {
  AUTHORIZER_ENTRY,
  FUNCTION_NAMES,
  type FunctionName,
  type OperationId,
  resourcePath,
  route,
} from '../../shared/api/routes.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { createKeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { keysTable, tables } from '../../shared/dynamodb/tables.ts';
import { CURSOR_SECRET_ARN_ENV } from '../../shared/lambda/cursor-secret.ts';
import { proxyEvent } from '../../shared/lambda/proxy-event.ts';
import { powertoolsEnvironment } from '../../shared/observability/metric-names.ts';
import { listenOnLoopback } from '../../tools/harness/loopback.ts';
import { type SampleRequest, sampleHttpRequest, sampleRequests } from '../../tools/harness/sample-requests.ts';
import { startXRayDaemon } from '../../tools/harness/xray-daemon.ts';
import type { HostRequest, Ready, RunResult } from './handler-host.ts';
import { SEED_FIRST_ID, seedPets } from './seed.ts';

/**
 * Off: the function with the stage's tracing switch off. Sampled and unsampled: the same bundle
 * with it on, as both stages deploy it, each invocation under a trace header that Lambda sampled or did not.
 */
export type Tracing = 'off' | 'sampled' | 'unsampled';
/** The stage's Node settings, on both sides alike: staging's `--enable-source-maps` (infra/stages.ts) or not. */
export type Settings = 'production' | 'staging';
/** A function under settings and tracing; `file`: its bundle, if not this checkout's code built as the stack builds it. */
export type Variant = { function: FunctionName; settings: Settings; tracing: Tracing; file?: string };
const NODE_OPTIONS_OF: Record<Settings, string[]> = { production: [], staging: ['--enable-source-maps'] };
const HOST = fileURLToPath(new URL('./handler-host.ts', import.meta.url));
const FLOOR_ENTRY = fileURLToPath(new URL('../floor/handlers.ts', import.meta.url));
const STAGE = 'staging';
const DOMAIN = 'bench.execute-api.us-east-1.amazonaws.com';

/** Builds `entry` into `outdir/index.mjs` and its chunks exactly as the stack does (lambdaBuildOptions). */
const buildBundle = async (entry: string, outdir: string): Promise<string> => {
  rmSync(outdir, { recursive: true, force: true }); // no chunk of an earlier build beside the new ones
  await build(lambdaBuildOptions(entry, outdir));
  return join(outdir, 'index.mjs');
};

/** Every module of the bundle whose entry is `file` (index.mjs and its chunks), as deployed. */
export const bundleModules = (file: string): string[] =>
  readdirSync(dirname(file))
    .filter((name) => name.endsWith('.mjs'))
    .map((name) => join(dirname(file), name));

/**
 * A floor that loaded the service's validation (zod, the schemas) would import slower than a bare
 * handler does, and flatter every cold-start ratio: its bundle must hold the SDK and nothing of ours
 * but the table names and the create's write.
 */
const SERVICE_CODE = /node_modules\/zod\/|shared\/(api|domain|lambda|observability)\//;
const assertBare = (bundle: string): void => {
  const sources = bundleModules(bundle).flatMap(
    (module) => (JSON.parse(readFileSync(`${module}.map`, 'utf8')) as { sources: string[] }).sources,
  );
  const ours = sources.filter((source) => SERVICE_CODE.test(source));
  if (ours.length > 0) throw new Error(`the floor bundles the service's code: ${ours.join(', ')}`);
};

/** `operationId`'s valid sample, with what the bench sets apart (a seeded id, a page size), as API Gateway's event. */
const eventOf = (operationId: OperationId, keyId: string, overrides: SampleRequest = {}) => {
  const sample = { ...sampleRequests[operationId].valid, ...overrides };
  const spec = sampleHttpRequest(operationId, sample, {
    versioned: true,
    headers: {
      Accept: '*/*',
      Authorization: 'Bearer (not read by the function)',
      Host: DOMAIN,
      'User-Agent': 'curl/8.5.0',
      'X-Amzn-Trace-Id': 'Root=1-67891233-abcdef012345678912345678',
      'X-Forwarded-For': '203.0.113.7',
      'X-Forwarded-Port': '443',
      'X-Forwarded-Proto': 'https',
    },
  });
  const body = spec.body ?? null;
  const headers = { ...spec.headers, ...(body !== null && { 'Content-Length': String(Buffer.byteLength(body)) }) };
  return proxyEvent(
    {
      ...{ url: new URL(spec.path, `https://${DOMAIN}`), headers: Object.entries(headers), body },
      ...{ isBase64Encoded: false, sourceIp: '203.0.113.7', protocol: 'HTTP/1.1', domainName: DOMAIN },
    },
    { route: route(operationId), pathParameters: { ...sample.pathParameters } },
    {
      ...{ accountId: '000000000000', apiId: 'bench', stage: STAGE, requestId: randomUUID() },
      ...{ identity: { principalId: keyId, context: { keyId } }, clientPathPrefix: `/${STAGE}` },
    },
  );
};

/** A fresh process holding one handler (`args`: its bundle, its export, its event). Its log lines go nowhere we read. */
const startHost = async (args: string[], env: NodeJS.ProcessEnv, settings: Settings) => {
  const child = fork(HOST, args, {
    env,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execArgv: NODE_OPTIONS_OF[settings],
  });
  const exited = once(child, 'exit');
  const [ready] = await Promise.race([once(child, 'message'), exited]);
  if (child.exitCode !== null) throw new Error(`handler host for ${args[0]} exited with ${child.exitCode}`);
  return {
    ready: ready as Ready,
    /** Runs `invocations` one after another (the host answers each request with one message); throws if the last failed. */
    run: async (invocations: number) => {
      child.send(invocations satisfies HostRequest);
      const [result] = (await once(child, 'message')) as [RunResult];
      if (result.failed) throw new Error(`${args[1]} of ${args[0]} failed: ${result.failed}`);
      return result;
    },
    stop: async () => {
      child.send('stop' satisfies HostRequest);
      await exited;
    },
  };
};

/** The embedded DynamoDB with 1,000 animals and one key, the bundles, the events and each function's environment. */
export const prepareLambdaEnv = async () => {
  const out = join(REPOSITORY_ROOT, 'cdk.out', 'bench-handlers');
  const floor = await buildBundle(FLOOR_ENTRY, join(out, 'floor'));
  assertBare(floor);
  const work = mkdtempSync(join(tmpdir(), 'petstore-handlers-'));
  const dynamodb = await startEmbeddedDynamoDB(work);
  await ensureTables(dynamodb.endpoint);
  await seedPets(dynamodb.endpoint, 1_000);
  Object.assign(process.env, dynamodbEnvironment(dynamodb.endpoint));
  const { key, keyId } = await createKeysRepository(createDocumentClient(), keysTable.name).create('handler bench');
  const entry = (name: FunctionName) => (name === 'authorizer' ? AUTHORIZER_ENTRY : route(name).entry);
  const files = await Promise.all(FUNCTION_NAMES.map((name) => buildBundle(entry(name), join(out, name))));
  const built = Object.fromEntries(FUNCTION_NAMES.map((name, i) => [name, files[i]!])) as Record<FunctionName, string>;
  const listing = route('listPets');
  const events: Record<FunctionName, unknown> = {
    getPet: eventOf('getPet', keyId, { pathParameters: { petId: String(SEED_FIRST_ID + 42) } }),
    listPets: eventOf('listPets', keyId, { query: { limit: '20' } }),
    createPet: eventOf('createPet', keyId),
    authorizer: {
      type: 'TOKEN',
      authorizationToken: `Bearer ${key}`,
      methodArn: `arn:aws:execute-api:us-east-1:000000000000:bench/${STAGE}/${listing.method}${resourcePath(listing)}`,
    },
  };
  // To check that the sampled rounds traced and the others did not.
  const daemon = await startXRayDaemon();
  const xray = {
    AWS_XRAY_DAEMON_ADDRESS: daemon.address,
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
    /** A fresh host of the variant's function or of its floor, with its event and environment. */
    host: ({ function: name, settings, tracing, file = built[name] }: Variant, side: 'floor' | 'function') => {
      const [bundle, exportName] = side === 'floor' ? [floor, name] : [file, 'handler'];
      return startHost([bundle, exportName, JSON.stringify(events[name])], environment(name, tracing), settings);
    },
    /** The documents sent to the X-Ray daemon since the last call (after a moment for those on their way). */
    segmentsSent: async () => (await daemon.take()).length,
    close: async () => {
      daemon.close();
      await extension.close();
      await dynamodb.close();
      rmSync(work, { recursive: true, force: true });
    },
  };
};
export type LambdaEnv = Awaited<ReturnType<typeof prepareLambdaEnv>>;
