// shared/release-checks — what a new version must answer before any client is sent to it: the
// pre-traffic hook (functions/pre-traffic-hook.ts) runs these checks against the version a
// deploy published, by invoking it directly with the events API Gateway would send, and
// `npm test` runs the very same checks against the local handlers (test/integration/
// release-checks.test.ts). They create nothing, so they run in production as they run anywhere:
// no animal, no key; the one write is the authorizer recording when the probe key was last used. Imports shared/api and shared/lambda's event builder.
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayTokenAuthorizerEvent,
} from 'aws-lambda';
import { API_VERSION_PATH, FUNCTION_NAMES, type FunctionName, type OperationId, route } from '../api/routes.ts';
import { ErrorBody, responseSchemas } from '../api/schemas.ts';
import { proxyEvent } from '../lambda/proxy-event.ts';
import { answerProblems, deprecationProblems, type GenericAnswer, genericChecks } from './generic.ts';
import { type SampleRequest, samplePath, sampleRequests } from './samples.ts';

/**
 * The functions a release checks: every function (shared/api/routes.ts), so that one without
 * checks is a type error rather than a pre-traffic hook that fails every deploy.
 */
export type CheckedFunction = FunctionName;

/** What the authorizer answered: a policy, the refusal API Gateway turns into a 401, or a fault. */
export type AuthorizerAnswer =
  | { readonly kind: 'allowed'; readonly result: APIGatewayAuthorizerResult }
  | { readonly kind: 'refused' }
  | { readonly kind: 'failed'; readonly message: string };

/** How the checks reach the version under test: Lambda's Invoke deployed, the handler itself in tests. */
export interface CheckTarget {
  http(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult>;
  authorize(event: APIGatewayTokenAuthorizerEvent): Promise<AuthorizerAnswer>;
}

export interface CheckContext {
  /** The deployed stage's name: its events' stage and method ARNs carry it. */
  readonly stage: string;
  /** A key the stage's keys table knows (the authorizer must let it in); needed by the authorizer's checks only. */
  readonly probeKey?: string | undefined;
}

export interface CheckResult {
  readonly check: string;
  /** Absent when the answer was as the contract says. */
  readonly problem?: string;
}

/** The key id that API Gateway would have put in the event of a caller the authorizer let in. */
const PROBE_PRINCIPAL = 'key_ReleaseProbe';
/** Well-formed and never issued: keys carry 43 random characters, this one none. */
const UNKNOWN_KEY = `pet_${'0'.repeat(43)}`;

/** A sample request as the event API Gateway would send; its JSON body as `contentType` when given. */
const event = (
  context: CheckContext,
  operation: OperationId,
  sample: SampleRequest,
  contentType = 'application/json',
): APIGatewayProxyEvent => {
  const body = sample.body === undefined ? undefined : JSON.stringify(sample.body);
  return proxyEvent(
    {
      url: new URL(`${API_VERSION_PATH}${samplePath(route(operation), sample)}`, 'https://release-check.invalid'),
      headers: Object.entries({
        'User-Agent': 'petstore-release-check',
        ...(body !== undefined && { 'Content-Type': contentType }),
      }),
      // The API's binary media type `*/*` hands every body over as the client's bytes, in base64.
      body: body === undefined ? null : Buffer.from(body, 'utf8').toString('base64'),
      isBase64Encoded: body !== undefined,
      sourceIp: '127.0.0.1',
      protocol: 'HTTP/1.1',
      domainName: 'release-check.invalid',
    },
    { route: route(operation), pathParameters: { ...sample.pathParameters } },
    {
      accountId: '000000000000',
      apiId: 'releasecheck',
      stage: context.stage,
      requestId: `release-check-${operation}-${Date.now()}`,
      identity: { principalId: PROBE_PRINCIPAL, context: { keyId: PROBE_PRINCIPAL } },
      clientPathPrefix: `/${context.stage}`,
    },
  );
};

const header = (answer: APIGatewayProxyResult, name: string): string | undefined => {
  const found = Object.entries(answer.headers ?? {}).find(([key]) => key.toLowerCase() === name.toLowerCase());
  return found === undefined ? undefined : String(found[1]);
};

const bodyOf = (answer: APIGatewayProxyResult): unknown => {
  try {
    return JSON.parse(answer.isBase64Encoded ? Buffer.from(answer.body, 'base64').toString('utf8') : answer.body);
  } catch {
    return undefined;
  }
};

/** The problems of an error answer: its status, and an Error body of that status and code. */
const errorProblems = (answer: APIGatewayProxyResult, status: number, code: string): string[] => {
  if (answer.statusCode !== status) return [`status ${answer.statusCode}, expected ${status}`];
  const parsed = ErrorBody.safeParse(bodyOf(answer));
  if (!parsed.success) return ['the body is not an Error body'];
  const problems: string[] = [];
  if (parsed.data.code !== code) problems.push(`code ${parsed.data.code}, expected ${code}`);
  if (parsed.data.status !== status) problems.push(`body status ${parsed.data.status}, expected ${status}`);
  return problems;
};

const jsonContentType = (answer: APIGatewayProxyResult): string[] =>
  /^application\/json\b/i.test(header(answer, 'Content-Type') ?? '') ? [] : ['Content-Type is not application/json'];

const result = (check: string, problems: readonly string[]): CheckResult =>
  problems.length === 0 ? { check } : { check, problem: problems.join('; ') };

/** Runs one check; a check that throws (the invocation failed) is a problem, not a crash of the hook. */
const run = async (check: string, body: () => Promise<string[]>): Promise<CheckResult> => {
  try {
    return result(check, await body());
  } catch (error) {
    return result(check, [`the invocation failed: ${error instanceof Error ? error.message : String(error)}`]);
  }
};

const tokenEvent = (context: CheckContext, authorizationToken: string): APIGatewayTokenAuthorizerEvent => ({
  type: 'TOKEN',
  authorizationToken,
  methodArn: `arn:aws:execute-api:us-east-1:000000000000:releasecheck/${context.stage}/GET/v1/pets`,
});

const refused = async (target: CheckTarget, event: APIGatewayTokenAuthorizerEvent): Promise<string[]> => {
  const answer = await target.authorize(event);
  if (answer.kind === 'refused') return [];
  return [answer.kind === 'allowed' ? 'let the caller in' : `failed instead of refusing: ${answer.message}`];
};

const answerOf = (answer: APIGatewayProxyResult): GenericAnswer => ({
  status: answer.statusCode,
  header: (name) => header(answer, name),
  body: bodyOf(answer),
});

/**
 * An operation's generic checks (generic.ts) that a direct invocation can make (a read key's 403
 * is the gateway's), each answer in the Error body and with the deprecation headers its entry
 * names.
 */
const genericReleaseChecks = async (target: CheckTarget, context: CheckContext, operationId: OperationId) => {
  const results: CheckResult[] = [];
  for (const check of genericChecks(route(operationId)).filter((c) => !c.readKey))
    results.push(
      await run(check.name, async () => {
        for (let sent = 0; sent < (check.twice ? 2 : 1); sent++) {
          const answer = await target.http(event(context, operationId, check.sample, check.contentType));
          const problems = errorProblems(answer, check.status, check.code);
          if (problems.length === 0) problems.push(...answerProblems(check, answerOf(answer)));
          problems.push(...jsonContentType(answer), ...deprecationProblems(route(operationId), answerOf(answer)));
          if (problems.length > 0) return sent === 0 ? problems : problems.map((p) => `sent again: ${p}`);
        }
        return [];
      }),
    );
  return results;
};

/**
 * An operation's valid sample, where it is answered so on any stage (samples.ts, `anyStage`):
 * its success status, in JSON, with a body of its route entry's `response` schema.
 */
const validSampleCheck = async (target: CheckTarget, context: CheckContext, operationId: OperationId) => {
  const { valid } = sampleRequests[operationId];
  const { response } = route(operationId);
  if (!valid.anyStage) return [];
  return [
    await run(`${operationId} answers ${valid.status} with ${response ?? 'no body'}`, async () => {
      const answer = await target.http(event(context, operationId, valid));
      if (answer.statusCode !== valid.status) return [`status ${answer.statusCode}, expected ${valid.status}`];
      if (response === undefined) return [];
      const parsed = responseSchemas[response].safeParse(bodyOf(answer));
      return [...jsonContentType(answer), ...(parsed.success ? [] : [`the body is not ${response}`])];
    }),
  ];
};

type Checks = (target: CheckTarget, context: CheckContext) => Promise<CheckResult[]>;

/** The authorizer's release checks: an operation's are derived from its route entry and samples. */
const authorizerChecks: Checks = async (target, context) => [
  await run('the authorizer refuses a malformed key', () => refused(target, tokenEvent(context, 'Bearer not-a-key'))),
  await run('the authorizer refuses an unknown key', () =>
    refused(target, tokenEvent(context, `Bearer ${UNKNOWN_KEY}`)),
  ),
  await run("the authorizer lets the stage's probe key in", async () => {
    if (!context.probeKey)
      return ['no probe key to check with: the stack mints it (docs/deploying.md, The release probe key)'];
    const answer = await target.authorize(tokenEvent(context, `Bearer ${context.probeKey}`));
    if (answer.kind !== 'allowed') return [answer.kind === 'refused' ? 'refused it' : `failed: ${answer.message}`];
    // A read key: its policy must allow the listing (and may deny the writes).
    const statements = answer.result.policyDocument.Statement as { Effect?: string; Resource?: string | string[] }[];
    const listing = (arn: string) => /\/GET\/v1\/pets$/.test(arn);
    const problems: string[] = [];
    if (!statements.some((s) => s.Effect === 'Allow' && [s.Resource ?? []].flat().some(listing)))
      problems.push('its policy does not allow GET /v1/pets');
    if (!/^key_/.test(answer.result.principalId)) problems.push('its principal is not a key id');
    return problems;
  }),
];

/** Each function's checks, in the order they run: its operation's generic ones, then its valid sample's. They create nothing (the probe key's last use aside). */
export const releaseChecks = Object.fromEntries(
  FUNCTION_NAMES.map((name): [CheckedFunction, Checks] => [
    name,
    async (target, context) => [
      ...(name === 'authorizer'
        ? await authorizerChecks(target, context)
        : [...(await genericReleaseChecks(target, context, name)), ...(await validSampleCheck(target, context, name))]),
    ],
  ]),
) as Readonly<Record<CheckedFunction, Checks>>;

/** The checks that did not hold, each with what was wrong. */
export const failedChecks = (results: readonly CheckResult[]): CheckResult[] =>
  results.filter((r) => r.problem !== undefined);
