// The Lambda environment of the handler benchmarks (handler-bench.ts): each function and the floor
// (bench/floor/handlers.ts) bundled as the stack bundles them, each side run as Lambda runs it
// (tools/harness/lambda-process.ts); an embedded DynamoDB with 1,000 animals and a key, in this
// process so that its CPU counts on neither side; stand-ins for the X-Ray daemon and the Parameters
// and Secrets extension; and each function's event: its valid sample (tools/harness/
// sample-requests.ts) as API Gateway's REST proxy event, or a TOKEN event.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { lambdaBuildOptions } from '../../infra/constructs/bundled-function.ts';
import { ensureTables, startEmbeddedDynamoDB } from '../../infra/local/embedded-dynamodb.ts';
import { dynamodbEnvironment } from '../../infra/local/function-environment.ts';
import { REPOSITORY_ROOT } from '../../infra/repository-root.ts';
import {
  AUTHORIZER_ENTRY,
  FUNCTION_NAMES,
  type FunctionName,
  type OperationId,
  resourcePath,
  route,
  routes,
} from '../../shared/api/routes.ts';
import { createDocumentClient } from '../../shared/dynamodb/document-client.ts';
import { createKeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { keysTable } from '../../shared/dynamodb/tables.ts';
import { CURSOR_SECRET_ARN_ENV } from '../../shared/lambda/cursor-secret.ts';
import {
  everyInvocationAnswered,
  type LambdaProcessOptions,
  startLambdaProcess,
} from '../../tools/harness/lambda-process.ts';
import { listenOnLoopback } from '../../tools/harness/loopback.ts';
import { type SampleRequest, sampleEvent, sampleRequests } from '../../tools/harness/sample-requests.ts';
import { startXRayDaemon } from '../../tools/harness/xray-daemon.ts';
import { SEED_FIRST_ID, seedPets } from './seed.ts';

/**
 * Off: the function with the stage's tracing switch off. Sampled and unsampled: the same bundle
 * with it on, as both stages deploy it, each invocation under a trace header that Lambda sampled or did not.
 */
export type Tracing = 'off' | 'sampled' | 'unsampled';
/** The stage's Node settings, on both sides alike: staging's `--enable-source-maps` (infra/stages.ts) or not. */
export type Settings = 'production' | 'staging';
/** A function under settings and tracing; `bundle`: its directory, if not this checkout's code built as the stack builds it. */
export type Variant = { function: FunctionName; settings: Settings; tracing: Tracing; bundle?: string };
const NODE_OPTIONS_OF: Record<Settings, string[]> = { production: [], staging: ['--enable-source-maps'] };
/** What the bench sets apart from an operation's valid sample, where it must: a seeded id, a page size. */
const BENCH_REQUESTS: Partial<Record<OperationId, SampleRequest>> = {
  getPet: { pathParameters: { petId: String(SEED_FIRST_ID + 42) } },
  listPets: { query: { limit: '20' } },
};
const FLOOR_ENTRY = fileURLToPath(new URL('../floor/handlers.ts', import.meta.url));

/**
 * Builds `entry` into `outdir` (index.mjs and its chunks) exactly as the stack does (lambdaBuildOptions);
 * from the checkout at `root` (its file at the same path, its node_modules), if not this one.
 */
const buildBundle = async (entry: string, outdir: string, root = REPOSITORY_ROOT): Promise<string> => {
  rmSync(outdir, { recursive: true, force: true }); // no chunk of an earlier build beside the new ones
  const options = lambdaBuildOptions(join(resolve(root), relative(REPOSITORY_ROOT, entry)), outdir);
  await build({ ...options, absWorkingDir: resolve(root) });
  return outdir;
};

/**
 * HANDLER_CHECKOUT: another checkout (a worktree of another commit, or one with a piece taken out,
 * its dependencies installed) whose functions are measured in place of this one's, against this
 * one's floor, built by this one's build options: its ratios set beside this checkout's, run after
 * run, tell what a change or a piece costs (docs/performance.md, "What each piece costs").
 */
const FUNCTIONS_CHECKOUT = process.env.HANDLER_CHECKOUT;

/** Every module of the bundle in `dir` (index.mjs and its chunks), as deployed. */
export const bundleModules = (dir: string): string[] =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.mjs'))
    .map((name) => join(dir, name));

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

/** The embedded DynamoDB with 1,000 animals and one key, the bundles, the events and the stand-ins. */
export const prepareLambdaEnv = async () => {
  // The bundles in a directory of this run's own: two runs at once (the e2e tests of
  // bench:handlers and bench:instructions, side by side in `npm test`) once shared
  // cdk.out/bench-handlers, and one's rebuild removed the other's floor under its running hosts
  // (CI at 546f8cf: ENOENT on cdk.out/bench-handlers/floor).
  const out = mkdtempSync(join(tmpdir(), 'petstore-bench-bundles-'));
  const floor = await buildBundle(FLOOR_ENTRY, join(out, 'floor'));
  assertBare(floor);
  const work = mkdtempSync(join(tmpdir(), 'petstore-handlers-'));
  const dynamodb = await startEmbeddedDynamoDB(work);
  await ensureTables(dynamodb.endpoint);
  await seedPets(dynamodb.endpoint, 1_000);
  Object.assign(process.env, dynamodbEnvironment(dynamodb.endpoint));
  const { key, keyId } = await createKeysRepository(createDocumentClient(), keysTable.name).create('handler bench');
  const entry = (name: FunctionName) => (name === 'authorizer' ? AUTHORIZER_ENTRY : route(name).entry);
  const dirs = await Promise.all(
    FUNCTION_NAMES.map((name) => buildBundle(entry(name), join(out, name), FUNCTIONS_CHECKOUT)),
  );
  const built = Object.fromEntries(FUNCTION_NAMES.map((name, i) => [name, dirs[i]!])) as Record<FunctionName, string>;
  /** Each operation's valid sample, with what the bench sets apart (a seeded id, a page size). */
  const eventOf = (operationId: OperationId) =>
    sampleEvent(operationId, { ...sampleRequests[operationId].valid, ...BENCH_REQUESTS[operationId] }, { keyId });
  const listing = route('listPets');
  const events: Record<FunctionName, unknown> = {
    ...(Object.fromEntries(routes.map((r) => [r.operationId, eventOf(r.operationId)])) as Record<OperationId, unknown>),
    authorizer: {
      type: 'TOKEN',
      authorizationToken: `Bearer ${key}`,
      methodArn: `arn:aws:execute-api:us-east-1:000000000000:bench/staging/${listing.method}${resourcePath(listing)}`,
    },
  };
  // To check that the sampled rounds traced and the others did not.
  const daemon = await startXRayDaemon();
  // A stand-in for the Parameters and Secrets extension's endpoint, from which listPets reads its
  // cursor secret as deployed (shared/lambda/cursor-secret.ts): its first invocation makes that call.
  // It takes the function's own session token, as the extension does: the embedded DynamoDB's.
  const SESSION_TOKEN = dynamodbEnvironment(dynamodb.endpoint).AWS_SESSION_TOKEN;
  const extension = await listenOnLoopback(
    createServer((request, response) => {
      if (request.headers['x-aws-parameters-secrets-token'] !== SESSION_TOKEN) return response.writeHead(401).end();
      response.end(JSON.stringify({ SecretString: 'bench-cursor-secret-0123456789abcdef' }));
    }),
  );
  const secretFromExtension = {
    [CURSOR_SECRET_ARN_ENV]: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:CursorSecret1-bench',
    PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: new URL(extension.endpoint).port,
  };
  return {
    /** A fresh host of the variant's function or of its floor, with its event; `run` throws if any of its invocations failed. */
    host: async (
      { function: name, settings, tracing, bundle = built[name] }: Variant,
      side: 'floor' | 'tuned floor' | 'function',
      launcher?: LambdaProcessOptions['launcher'],
    ) => {
      const host = await startLambdaProcess({
        ...(launcher && { launcher }),
        ...(side === 'function' ? { bundle } : { bundle: floor, exportName: name }),
        ...{ functionName: name, dynamodbEndpoint: dynamodb.endpoint, nodeOptions: NODE_OPTIONS_OF[settings] },
        tracing: tracing === 'off' ? undefined : { daemonAddress: daemon.address, sampled: tracing === 'sampled' },
        environment: {
          ...(name === 'listPets' && secretFromExtension),
          ...(side === 'tuned floor' && { BENCH_FLOOR_CLIENT: 'functions' }), // bench/floor/handlers.ts
        },
      });
      // Every invocation of a run, not its last alone: a measured run holds only the route's answers.
      const run = async (invocations: number) =>
        everyInvocationAnswered(await host.invoke(events[name], invocations), `${side} ${name}`, invocations);
      return { ...host, run };
    },
    /** The documents sent to the X-Ray daemon since the last call (after a moment for those on their way). */
    segmentsSent: async () => (await daemon.take()).length,
    close: async () => {
      daemon.close();
      await extension.close();
      await dynamodb.close();
      rmSync(work, { recursive: true, force: true });
      rmSync(out, { recursive: true, force: true });
    },
  };
};
export type LambdaEnv = Awaited<ReturnType<typeof prepareLambdaEnv>>;
