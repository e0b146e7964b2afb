// What on-call reads of each function and of the authorizer, from the real thing: the local
// server (stage `local`, DEBUG logs, EMF on) answers every route, failures included, and its
// output is filed as CloudWatch would file it. No line may name a key or an Authorization
// header; every request a function answered leaves one summary line, with every field on-call
// reads. The gateway's access line, the metrics and the saved queries: access-log-and-metrics.test.ts.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogSource } from '../../infra/monitoring/queries.ts';
import { answers, route, routes } from '../../shared/api/routes.ts';
import {
  AUTHORIZER_SUMMARY_MESSAGE,
  ENVIRONMENT_START_MESSAGE,
  LOG_FIELDS,
} from '../../shared/observability/log-fields.ts';
import type { LocalServer } from '../../tools/harness/local-server.ts';
import { fieldOf, type LogLine, linesOf, type ParsedOutput } from '../support/observability.ts';
import {
  type Exchange,
  reachedFunctions as functionsReached,
  observeEveryAnswer,
  summariesOf,
} from '../support/observed-stage.ts';
import { disposeServer, expectError } from './support.ts';

let server: LocalServer;
let parsed: ParsedOutput;
let keyId: string;
let revokedKeyId: string;
let exchanges: Exchange[];
let secrets: string[];

beforeAll(async () => {
  ({ server, parsed, keyId, revokedKeyId, exchanges, secrets } = await observeEveryAnswer());
}, 90_000);

afterAll(() => disposeServer(server));

const summaries = (source: LogSource) => summariesOf(parsed, source);
const reachedFunctions = () => functionsReached(exchanges);
const statusOf = (e: Exchange) => e.reply.status;
/** The route table's methods: every method ARN the authorizer is asked about names one. */
const methods = [...new Set(routes.map((r) => r.method))];

describe('the requests driven', () => {
  it('cover every route, and answer as the contract says', () => {
    expect(new Set(reachedFunctions().map((e) => e.operation))).toEqual(new Set(routes.map((r) => r.operationId)));
    for (const e of exchanges) {
      expect(statusOf(e), e.target).toBe(e.expected);
      // A function's answer is one its route entry declares (shared/api/routes.ts, answers).
      if (e.operation) expect(answers(route(e.operation)), e.target).toContain(statusOf(e));
    }
    for (const e of exchanges.filter((e) => statusOf(e) >= 400))
      expectError(e.reply, statusOf(e), (e.reply.body as { code: string }).code, secrets);
  });
});

describe('logs', () => {
  it('no line names a key or an Authorization header', () => {
    // The access line of each request, its authorizer's line and its function's: something to check.
    expect(parsed.raw.length).toBeGreaterThan(exchanges.length * 2);
    // The banner too: this output is a pipe, not a terminal, so it names the key's file instead
    // (banner-key.test.ts). Every line the server wrote, from its first.
    expect(server.output()).not.toContain(server.key);
    for (const line of server.output().split('\n')) {
      for (const secret of secrets) expect(line).not.toContain(secret);
      expect(line).not.toMatch(/pet_[0-9A-Za-z]{32,}/);
      expect(line).not.toMatch(/\b(bearer|basic)\s+[A-Za-z0-9+/=_]{16,}/i);
    }
  });

  it('each request a function answered has exactly one summary line, with every field', () => {
    for (const e of reachedFunctions()) {
      const mine = summaries(e.operation).filter((line) => line.requestId === e.requestId);
      expect(mine, `${e.operation} ${statusOf(e)}`).toHaveLength(1);
      const [line] = mine as [LogLine];
      expect(line.level).toBe('INFO');
      expect(line.operation).toBe(e.operation);
      expect(line.status).toBe(statusOf(e));
      expect(line.errorCode).toBe(statusOf(e) >= 400 ? (e.reply.body as { code: string }).code : undefined);
      expect(line.latencyMs).toEqual(expect.any(Number));
      expect(line.keyId).toBe(keyId);
      expect(line.cold_start).toEqual(expect.any(Boolean));
    }
    const gatewayOnly = exchanges.filter((e) => e.operation === undefined).map((e) => e.requestId);
    for (const { operationId } of routes)
      expect(summaries(operationId).filter((l) => gatewayOnly.includes(l.requestId as string))).toEqual([]);
  });

  it('each summary line names the request inputs as sent, the cursor by its position only, and the version and commit', () => {
    // The commit as git tells it, and the version Lambda names an unpublished function: $LATEST.
    const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' }).trim();
    let resumed = 0;
    for (const e of reachedFunctions()) {
      const [line] = summaries(e.operation).filter((l) => l.requestId === e.requestId) as [LogLine];
      expect(line.executedVersion).toBe('$LATEST');
      expect(line.commit).toMatch(new RegExp(`^${head}(-dirty)?$`));
      const sent = new URL(e.target, 'http://x').searchParams;
      const expected: Record<string, string | string[]> = {};
      for (const name of new Set(sent.keys())) {
        const values = sent.getAll(name);
        if (name !== 'cursor') expected[name] = values.length === 1 ? values[0]! : values;
      }
      expect(line.query ?? {}, e.target).toEqual(expected);
      expect(line.queryShape, e.target).toBe([...new Set(sent.keys())].sort().join('&') || undefined);
      expect(line.cursorSent, e.target).toBe(sent.has('cursor'));
      const petId = /^\/pets\/([^/?]+)/.exec(e.target)?.[1];
      if (e.operation === 'getPet' && petId) expect(line.pathParameters, e.target).toEqual({ petId });
      if (sent.has('cursor') && e.reply.status === 200) {
        // The page before it ended with this animal: the position the cursor resumes after.
        const before = exchanges[exchanges.indexOf(e) - 1]!.reply.body as Array<{ id: number }>;
        expect(line.cursorAfter, e.target).toBe(before.at(-1)!.id);
        resumed++;
      }
    }
    expect(resumed).toBe(1);
  });

  it("each function's first line is its deploy marker: the version and commit it runs", () => {
    for (const source of [...routes.map((r) => r.operationId), 'authorizer'] as const) {
      const [first] = linesOf(parsed, source);
      expect(first, source).toMatchObject({
        message: ENVIRONMENT_START_MESSAGE,
        level: 'INFO',
        executedVersion: '$LATEST',
        commit: expect.stringMatching(/^[0-9a-f]{12}(-dirty)?$/),
        function_name: `petstore-local-${source}`,
      });
      expect(linesOf(parsed, source).filter((l) => l.message === ENVIRONMENT_START_MESSAGE)).toHaveLength(1);
    }
  });

  it('every line of a request names its requestId and key id, so one query finds them all', () => {
    for (const { operationId } of routes) {
      for (const line of linesOf(parsed, operationId).filter((l) => l.message !== ENVIRONMENT_START_MESSAGE)) {
        expect(exchanges.map((e) => e.requestId)).toContain(line.requestId);
        expect(line.keyId).toBe(keyId);
      }
    }
  });

  it('a fault logs its stack with the requestId, and the body shows neither', () => {
    const fault = exchanges.find((e) => statusOf(e) === 500)!;
    const errors = linesOf(parsed, 'getPet').filter(
      (line) => line.level === 'ERROR' && line.requestId === fault.requestId,
    );
    expect(errors).toHaveLength(1);
    expect(fieldOf(errors[0]!, LOG_FIELDS.errorStack)).toMatch(/\n\s+at /);
    // The same request fields as its summary line: what was asked, of which version.
    const [summary] = summaries('getPet').filter((line) => line.requestId === fault.requestId);
    for (const field of ['keyId', 'pathParameters', 'cursorSent', 'executedVersion', 'commit'])
      expect(errors[0]![field], field).toEqual(summary![field]);
    expect(errors[0]!.pathParameters).toEqual({ petId: '1' });
    expect(fieldOf(errors[0]!, LOG_FIELDS.errorName)).toEqual(expect.any(String));
    expect(JSON.stringify(fault.reply.body)).not.toMatch(/\bat .+:\d+/);
  });

  it('the authorizer writes one summary line per invocation: outcome, reason, key id, latency, cold start', () => {
    const lines = linesOf(parsed, 'authorizer').filter((line) => line.message === AUTHORIZER_SUMMARY_MESSAGE);
    const allowed = lines.filter((line) => line.outcome === 'allow');
    const denied = lines.filter((line) => line.outcome === 'deny');
    const failed = lines.filter((line) => line.outcome === 'error');
    // Every request that reached a function went through the authorizer (no cache locally).
    expect(allowed).toHaveLength(reachedFunctions().length);
    for (const line of allowed) expect(line.keyId).toBe(keyId);
    expect(denied.map((line) => line.reason)).toEqual(['unknown', 'revoked']);
    // A revoked key is named by its id (who still uses it), an unknown one by nothing.
    expect(denied.map((line) => line.keyId)).toEqual([undefined, revokedKeyId]);
    expect(failed).toHaveLength(1);
    for (const line of lines) {
      expect(line.latencyMs).toEqual(expect.any(Number));
      expect(line.methodArn).toMatch(new RegExp(`^arn:aws:execute-api:.*/local/(${methods.join('|')})/`));
      expect(line.cold_start).toEqual(expect.any(Boolean));
    }
    const faults = linesOf(parsed, 'authorizer').filter((line) => line.level === 'ERROR');
    expect(faults).toHaveLength(1);
    expect(fieldOf(faults[0]!, LOG_FIELDS.errorStack)).toMatch(/\n\s+at /);
  });
});
