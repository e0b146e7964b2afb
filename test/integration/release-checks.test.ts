// The pre-traffic hook of every function, run for real (functions/pre-traffic-hook.ts, its SDK
// clients pointed at a loopback Lambda, CodeDeploy and Secrets Manager: support/hook-host.ts)
// against the local handlers in this process, with the keys and pets tables in dynalite: the
// real handlers pass every check and the hook reports Succeeded; a handler broken as a release
// could break it makes the hook report Failed, naming what was wrong.
import { randomUUID } from 'node:crypto';
import { LambdaClient } from '@aws-sdk/client-lambda';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { FUNCTION_NAMES, routes } from '../../shared/api/routes.ts';
import { createKeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { keysTable } from '../../shared/dynamodb/tables.ts';
import { type CheckedFunction, type CheckResult, releaseChecks } from '../../shared/release-checks/checks.ts';
import { lambdaTarget } from '../../shared/release-checks/lambda-target.ts';
import { RELEASE_CHECK_ENV } from '../../shared/release-checks/settings.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { type HookHost, type Invoked, startHookHost } from '../support/hook-host.ts';
import { type Functions, loadFunctions, setFunctionEnv, TEST_STAGE } from '../support/in-process.ts';

const versionArn = (name: CheckedFunction) => `arn:aws:lambda:us-east-1:123456789012:function:petstore-${name}:7`;
const PROBE_SECRET = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:petstore-probe-key';
const PLACEHOLDER_SECRET = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:petstore-probe-placeholder';

type Breakage = (name: CheckedFunction, event: any, real: () => Promise<Invoked>) => Promise<Invoked>;

let db: TestDynamoDB;
let functions: Functions;
let host: HookHost;
let hook: (event: { DeploymentId: string; LifecycleEventHookExecutionId: string }) => Promise<void>;
let probeKey: string;
/** How the invoked handler is broken in the current test; none: the real one answers. */
let breakage: Breakage | undefined;

const nameOf = (functionArn: string) => /function:petstore-(\w+):7$/.exec(functionArn)?.[1] as CheckedFunction;

const realAnswer = async (name: CheckedFunction, event: unknown): Promise<Invoked> => {
  try {
    return {
      result:
        name === 'authorizer'
          ? await functions.authorize(event as APIGatewayTokenAuthorizerEvent)
          : await functions.invoke(event as APIGatewayProxyEvent),
    };
  } catch (error) {
    return { error: error as Error };
  }
};

beforeAll(async () => {
  db = await startTestDynamoDB();
  setFunctionEnv(db.endpoint);
  functions = await loadFunctions();
  ({ key: probeKey } = await createKeysRepository(db.client, keysTable.name).create('release probe', {
    scope: 'read',
  }));
  host = await startHookHost({
    invoke: (functionArn, event) => {
      const name = nameOf(functionArn);
      const real = () => realAnswer(name, event);
      return breakage ? breakage(name, event, real) : real();
    },
    // What the stack makes (infra/constructs/deployment.ts) until an operator puts the key in.
    secrets: { [PROBE_SECRET]: probeKey, [PLACEHOLDER_SECRET]: 'k3n8x0q2m5v7b1c4z6l9p0r2t4w6y8a1' },
  });
  for (const service of ['LAMBDA', 'CODEDEPLOY', 'SECRETS_MANAGER'])
    process.env[`AWS_ENDPOINT_URL_${service}`] = host.endpoint;
  ({ handler: hook } = await import('../../functions/pre-traffic-hook.ts'));
  // The hook's one line per run: read here through the reports instead.
  vi.spyOn(console, 'log').mockImplementation(() => {});
}, 60_000);
afterAll(async () => {
  vi.restoreAllMocks();
  await host?.close();
  await db?.close();
});

/** Runs `name`'s hook as CodeDeploy would and returns what it reported, and the checks' results. */
const runHook = async (
  name: CheckedFunction,
  probeSecret = PROBE_SECRET,
): Promise<{ status: string | undefined; results: CheckResult[] }> => {
  Object.assign(process.env, {
    [RELEASE_CHECK_ENV.function]: name,
    [RELEASE_CHECK_ENV.version]: versionArn(name),
    [RELEASE_CHECK_ENV.stage]: TEST_STAGE,
    [RELEASE_CHECK_ENV.probeKeySecret]: name === 'authorizer' ? probeSecret : '',
  });
  const id = randomUUID();
  const logged = vi.mocked(console.log).mock.calls.length;
  await hook({ DeploymentId: 'd-RELEASE01', LifecycleEventHookExecutionId: id });
  const line = JSON.parse(String(vi.mocked(console.log).mock.calls[logged]?.[0]));
  return { status: host.reports.find((r) => r.lifecycleEventHookExecutionId === id)?.status, results: line.results };
};

describe.each(FUNCTION_NAMES)('%s, as released', (name) => {
  test('passes every check: the hook reports Succeeded, having invoked only the version under test', async () => {
    breakage = undefined;
    const before = host.invoked.length;
    const { status, results } = await runHook(name);
    expect(results.length).toBeGreaterThan(0);
    expect(results.filter((r) => r.problem)).toEqual([]);
    expect(status).toBe('Succeeded');
    expect(new Set(host.invoked.slice(before))).toEqual(new Set([versionArn(name)]));
  });
});

const withHeaders = (answer: APIGatewayProxyResult, drop: string): APIGatewayProxyResult => ({
  ...answer,
  headers: Object.fromEntries(Object.entries(answer.headers ?? {}).filter(([key]) => key !== drop)),
});

const ALLOW = (principalId: string) => ({
  principalId,
  policyDocument: {
    Version: '2012-10-17',
    Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: '*' }],
  },
});

/** The paths the broken getPet below was asked for: asked again, it finds the animal. */
const seen = new Set<string>();

const BROKEN: [string, CheckedFunction, Breakage, RegExp][] = [
  // Every operation's checks catch a function that fails every request.
  ...routes.map(({ operationId }): [string, CheckedFunction, Breakage, RegExp] => [
    `${operationId} that answers 500`,
    operationId,
    async () => ({
      result: { statusCode: 500, headers: { 'Content-Type': 'application/json' }, body: '{"code":"INTERNAL_ERROR"}' },
    }),
    /status 500, expected \d+/,
  ]),
  [
    'listPets that crashes',
    'listPets',
    async () => ({ error: new TypeError('Cannot read properties of undefined') }),
    /the invocation failed: Cannot read properties/,
  ],
  [
    'getPet that drops the Deprecation header',
    'getPet',
    async (_, __, real) => {
      const answer = await real();
      return 'result' in answer
        ? { result: withHeaders(answer.result as APIGatewayProxyResult, 'Deprecation') }
        : answer;
    },
    /Deprecation: undefined/,
  ],
  [
    'getPet whose 404 made the animal it did not find: the same request again finds it',
    'getPet',
    async (_, event, real) => {
      if (!seen.has(event.path)) return seen.add(event.path) && real();
      return { result: { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: '{}' } };
    },
    /sent again: status 200, expected 404/,
  ],
  [
    "listPets whose 400 names another field than the invalid sample's",
    'listPets',
    async (_, __, real) => {
      const answer = await real();
      if (!('result' in answer)) return answer;
      const result = answer.result as APIGatewayProxyResult;
      return { result: { ...result, body: result.body.replaceAll('"field":"limit"', '"field":"other"') } };
    },
    /its details name other, not limit/,
  ],
  [
    'listPets whose 200 is not a page of animals (its valid sample is sent on any stage)',
    'listPets',
    async (_, event, real) =>
      event.queryStringParameters?.limit === '5'
        ? { result: { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: '[{"id":"one"}]' } }
        : real(),
    /the body is not Pets/,
  ],
  [
    'createPet that accepts an invalid body',
    'createPet',
    async () => ({ result: { statusCode: 201, headers: { 'Content-Type': 'application/json' }, body: '{}' } }),
    /status 201, expected 400/,
  ],
  [
    'an authorizer that lets an unknown key in',
    'authorizer',
    async (_, event, real) =>
      event.authorizationToken === `Bearer ${probeKey}` ? real() : { result: ALLOW('key_Anyone0001') },
    /let the caller in/,
  ],
  [
    'an authorizer that refuses every key',
    'authorizer',
    async () => ({ error: new Error('Unauthorized') }),
    /refused it/,
  ],
];

describe.each(BROKEN)('%s', (_, name, broken, problem) => {
  test('fails its checks, naming what is wrong: the hook reports Failed', async () => {
    breakage = broken;
    try {
      const { status, results } = await runHook(name);
      expect(results.map((r) => r.problem ?? '').join('\n')).toMatch(problem);
      expect(status).toBe('Failed');
    } finally {
      breakage = undefined;
    }
  });
});

test('the authorizer check without a probe key fails rather than passes', async () => {
  const results = await releaseChecks.authorizer(
    { http: () => Promise.reject(new Error('unused')), authorize: async () => ({ kind: 'refused' }) },
    { stage: TEST_STAGE },
  );
  expect(results.find((r) => r.problem)?.problem).toMatch(/^no probe key to check with/);
});

test('a probe secret that still holds its placeholder is no key: the authorizer hook reports Failed', async () => {
  const { status, results } = await runHook('authorizer', PLACEHOLDER_SECRET);
  expect(results.map((r) => r.problem ?? '').join('\n')).toMatch(/no probe key to check with/);
  expect(status).toBe('Failed');
});

test('checks that cannot run (a probe secret it cannot read) are a release that failed, reported at once', async () => {
  const { status, results } = await runHook('authorizer', `${PROBE_SECRET}-that-does-not-exist`);
  expect(results).toEqual([{ check: 'the release checks ran', problem: expect.stringMatching(/^\w+: /) }]);
  expect(status).toBe('Failed');
});

// IAM is eventually consistent: a grant changed by the deploy may refuse the hook's first calls
// (aws/aws-cdk#29871; https://docs.aws.amazon.com/IAM/latest/UserGuide/troubleshoot_general.html#troubleshoot_general_eventual-consistency).
test('an Invoke refused with AccessDenied at first is retried: a good release still reports Succeeded', async () => {
  host.denyNextInvokes = 2;
  const before = host.invoked.length;
  const { status, results } = await runHook('getPet');
  expect(host.denyNextInvokes).toBe(0);
  expect(host.invoked.length - before).toBeGreaterThan(2);
  expect(results.filter((r) => r.problem)).toEqual([]);
  expect(status).toBe('Succeeded');
});

test('a denial that outlasts the retry window fails, naming AccessDenied; later calls share that one window', async () => {
  host.denyNextInvokes = 1_000;
  try {
    const target = lambdaTarget(new LambdaClient({}), versionArn('getPet'), { accessDeniedRetryMs: 1_000 });
    const started = Date.now();
    await expect(target.http({} as APIGatewayProxyEvent)).rejects.toMatchObject({ name: 'AccessDeniedException' });
    expect(Date.now() - started).toBeLessThan(5_000);
    // The window is spent: the next checks fail at once, so the hook still reports before its timeout.
    const attempts = host.invoked.length;
    await expect(target.http({} as APIGatewayProxyEvent)).rejects.toMatchObject({ name: 'AccessDeniedException' });
    await expect(target.authorize({} as APIGatewayTokenAuthorizerEvent)).rejects.toMatchObject({
      name: 'AccessDeniedException',
    });
    expect(host.invoked.length - attempts).toBe(2);
  } finally {
    host.denyNextInvokes = 0;
  }
});
