// What on-call reads of the gateway and of the metrics, from the real thing: the local server
// (stage `local`, DEBUG logs, EMF on) answers every route, failures included, and its output is
// filed as CloudWatch would file it. Every request leaves one access line that joins its
// authorizer's and its function's lines, and its metrics; every field a saved query reads is
// really written. The functions' and the authorizer's own lines: request-logs.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fieldsReadBy, type LogSource, savedQueries } from '../../infra/monitoring/queries.ts';
import { AUTHORIZER_SUMMARY_MESSAGE, REQUEST_SUMMARY_MESSAGE } from '../../shared/observability/log-fields.ts';
import { METRICS, type MetricKey, metricsNamespace, statusClassOf } from '../../shared/observability/metric-names.ts';
import type { LocalServer } from '../../tools/harness/local-server.ts';
import { emfLinesOf, fieldOf, type LogLine, linesOf, type ParsedOutput } from '../support/observability.ts';
import {
  type Exchange,
  reachedFunctions as functionsReached,
  observeEveryAnswer,
  summariesOf,
} from '../support/observed-stage.ts';
import { disposeServer } from './support.ts';

let server: LocalServer;
let parsed: ParsedOutput;
let keyId: string;
let revokedKeyId: string;
let exchanges: Exchange[];

beforeAll(async () => {
  ({ server, parsed, keyId, revokedKeyId, exchanges } = await observeEveryAnswer());
}, 90_000);

afterAll(() => disposeServer(server));

const summaries = (source: LogSource) => summariesOf(parsed, source);
const reachedFunctions = () => functionsReached(exchanges);
const statusOf = (e: Exchange) => e.reply.status;

describe('access log', () => {
  const accessLineOf = (e: Exchange) => parsed.accessLog.find((line) => line.requestId === e.requestId)!;

  it('every JSON line the stage writes carries its time', () => {
    const json = parsed.raw.filter((line) => line.startsWith('{'));
    expect(json.length).toBeGreaterThan(exchanges.length * 2);
    for (const line of json)
      expect(JSON.parse(line).timestamp, line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("names each request's time, path as sent, protocol, user agent and the answer's length", () => {
    for (const e of exchanges) {
      const line = accessLineOf(e);
      expect(line, e.target).toBeDefined();
      // CLF, as $context.requestTime: 29/Nov/2026:01:31:07 +0000, the same instant as the epoch.
      const clf = /^(\d\d)\/(\w{3})\/(\d{4}):(\d\d:\d\d:\d\d) \+0000$/.exec(line.requestTime as string)!;
      expect(clf, String(line.requestTime)).not.toBeNull();
      const epoch = line.requestTimeEpoch as number;
      expect(Date.parse(`${clf[1]} ${clf[2]} ${clf[3]} ${clf[4]} GMT`)).toBe(Math.floor(epoch / 1000) * 1000);
      expect(line.path).toBe(`/v1${e.target.split('?')[0]}`);
      expect(line.protocol).toBe('HTTP/1.1');
      expect(line.userAgent).toEqual(expect.any(String));
      expect(line.responseLength).toBe(Number(e.reply.headers.get('content-length')));
    }
  });

  it("a refused key's 401 joins, by authorizerRequestId, the authorizer's line that names the key", () => {
    const refusals = exchanges.filter((e) => e.reply.status === 401 && accessLineOf(e).authorizerRequestId);
    const denies = linesOf(parsed, 'authorizer').filter((l) => l.outcome === 'deny');
    // The unknown key's and the revoked key's: the authorizer was asked both times.
    expect(refusals).toHaveLength(2);
    const joined = refusals.map((e) => {
      const line = accessLineOf(e);
      expect(line.keyId).toBeNull();
      expect(line.authorizerError).toBe('Unauthorized');
      return denies.find((d) => d.function_request_id === line.authorizerRequestId);
    });
    expect(joined.map((d) => d?.reason)).toEqual(['unknown', 'revoked']);
    expect(joined[1]!.keyId).toBe(revokedKeyId);
    // A request refused before the authorizer (no credential) names no authorizer call.
    const unasked = exchanges.filter((e) => e.reply.status === 401 && !accessLineOf(e).authorizerRequestId);
    expect(unasked.length).toBeGreaterThan(0);
  });

  it('a function that answered names the authorizer call that let it in', () => {
    const allows = new Map(
      linesOf(parsed, 'authorizer')
        .filter((l) => l.outcome === 'allow')
        .map((l) => [l.function_request_id, l]),
    );
    for (const e of reachedFunctions()) expect(allows.get(accessLineOf(e).authorizerRequestId)?.keyId).toBe(keyId);
  });
});

describe('metrics', () => {
  const namespace = metricsNamespace('local');
  const emitted: MetricKey[] = [
    'requests',
    'latency',
    'validationFailures',
    'deprecatedCalls',
    'authFailures',
    'coldStart',
    'versionFaults',
  ];

  it.each(emitted)('%s: in the stage namespace, with exactly its declared dimensions', (key) => {
    const spec = METRICS[key];
    const found = emfLinesOf(parsed.emf, spec);
    expect(found.length).toBeGreaterThan(0);
    for (const { namespace: ns, dimensions, unit, line } of found) {
      expect(ns).toBe(namespace);
      expect(dimensions).toEqual([['service', ...spec.dimensions]]);
      expect(unit).toBe(spec.unit);
      for (const dimension of spec.dimensions) expect(line[dimension]).toEqual(expect.any(String));
    }
  });

  it('ride on the summary lines: one line per invocation, never a line of metrics alone', () => {
    for (const line of parsed.emf) {
      expect([REQUEST_SUMMARY_MESSAGE, AUTHORIZER_SUMMARY_MESSAGE]).toContain(line.message);
    }
    for (const e of reachedFunctions()) {
      const [summary] = summaries(e.operation).filter((line) => line.requestId === e.requestId) as [LogLine];
      expect(summary._aws, `${e.operation} ${statusOf(e)}`).toBeDefined();
      expect(summary[METRICS.requests.name]).toBe(1);
      expect(summary[METRICS.latency.name]).toBe(summary.latencyMs);
    }
  });

  it('Requests counts each answer once, by operation and status class', () => {
    const counted = emfLinesOf(parsed.emf, METRICS.requests)
      .map(({ line }) => `${line.operation} ${line.statusClass}`)
      .sort();
    const answered = reachedFunctions()
      .map((e) => `${e.operation} ${statusClassOf(statusOf(e))}`)
      .sort();
    expect(counted).toEqual(answered);
  });

  it('ValidationFailures counts the 400s, DeprecatedCalls the getPet calls by key id, AuthFailures the refused keys', () => {
    const per = (key: MetricKey) => emfLinesOf(parsed.emf, METRICS[key]).map(({ line }) => line);
    expect(
      per('validationFailures')
        .map((l) => l.operation)
        .sort(),
    ).toEqual(
      reachedFunctions()
        .filter((e) => statusOf(e) === 400)
        .map((e) => e.operation)
        .sort(),
    );
    expect(per('deprecatedCalls').map((l) => `${l.operation} ${l.keyId}`)).toEqual(
      reachedFunctions()
        .filter((e) => e.operation === 'getPet')
        .map(() => `getPet ${keyId}`),
    );
    expect(per('authFailures').map((l) => l.reason)).toEqual(['unknown', 'revoked']);
  });
});

describe('saved queries', () => {
  it('find the fields they read, not their keywords, literals or aliases', () => {
    expect(
      fieldsReadBy(
        'fields a, b.c | filter d = "x y" and e like /f g/ | stats count(*) as n by h, bin(5m) | sort n desc',
      ),
    ).toEqual(['a', 'b.c', 'd', 'e', 'h']);
  });

  it.each(savedQueries.map((q) => [q.name, q] as const))(
    '%s: every field it reads is written to one of its log groups',
    (_, query) => {
      const fields = fieldsReadBy(query.queryString);
      expect(fields.length).toBeGreaterThan(0);
      for (const field of fields) {
        const written = query.sources.some((source) =>
          linesOf(parsed, source).some((line) => (fieldOf(line, field) ?? null) !== null),
        );
        expect(written, `${query.name} reads "${field}", which no line of ${query.sources.join(', ')} has`).toBe(true);
      }
    },
  );
});
