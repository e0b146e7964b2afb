// The on-call drill, as a responder meets it: the local stage with a bug planted in listPets
// (test/support/planted-fault-server.ts: a filtered listing's follow-up pages throw), traffic
// from three keys, one of them revoked half way. Then `analyse`, which knows nothing of the
// fault, answers from the stage's output alone, by running docs/runbook.md's saved queries over
// it (test/support/logs-insights.ts): which operation, which key, which input shape, since when,
// which version; and whose key was refused, how often. The test then holds those answers against
// what it planted and sent.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LogSource, savedQueries } from '../../infra/monitoring/queries.ts';
import { type LocalServer, startLocalServer } from '../../tools/harness/local-server.ts';
import { type LogEvent, runQuery } from '../support/logs-insights.ts';
import { embeddedDynamoDB } from '../support/observability.ts';
import { section } from '../support/runbook.ts';
import { bearer, call, disposeServer, type RequestOptions } from './support.ts';

const BANNER_END = 'Stop with Ctrl+C.';

/** The stage's output filed as CloudWatch files it: each JSON line in its log group, with its time. */
const file = (output: string): LogEvent[] =>
  output
    .slice(output.indexOf(BANNER_END) + BANNER_END.length)
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .map((line) =>
      line.accessLog
        ? { ...(line.accessLog as object), '@timestamp': Date.parse(line.timestamp as string), '@log': 'accessLog' }
        : {
            ...line,
            '@timestamp': Date.parse(line.timestamp as string),
            '@log': String(line.function_name).replace(/^petstore-local-/, ''),
          },
    );

/** A saved query, run over its own log groups only, as the console runs it. */
const run = (name: string, events: readonly LogEvent[], text?: string) => {
  const query = savedQueries.find((q) => q.name === name)!;
  const sources: readonly string[] = query.sources as readonly LogSource[];
  return runQuery(
    text ?? query.queryString,
    events.filter((e) => sources.includes(e['@log'])),
  );
};

/** What a responder concludes from the output alone, with the runbook's queries: nothing else. */
const analyse = (events: readonly LogEvent[]) => {
  // 1. The failing answers, split by operation, key and input shape: the row far ahead.
  const [top] = run('errors-by-key-and-input', events);
  if (!top) throw new Error('no failing answer in the output');
  // 2. Every answer of that key and operation: the shapes that fail and those that do not.
  const mine = run('requests-by-key-and-input', events).filter(
    (row) => row.operation === top.operation && row.keyId === top.keyId,
  );
  const failing = new Set(mine.filter((r) => (r.status as number) >= 500).map((r) => r.queryShape));
  const served = new Set(mine.filter((r) => (r.status as number) < 500).map((r) => r.queryShape));
  // 3. The failing requests themselves: their parameters and where they resumed.
  const failed = run('failed-requests-with-inputs', events);
  // 4. When the version that answered began to serve.
  const release = run('releases', events).find(
    (row) => String(row.function_name).endsWith(`-${top.operation}`) && row.executedVersion === top.executedVersion,
  );
  return {
    operation: top.operation,
    keyId: top.keyId,
    status: top.status,
    /** Shapes of this key's requests that only ever failed. */
    trigger: [...failing].filter((shape) => !served.has(shape)),
    cursorSent: top.cursorSent,
    since: top.firstSeen as number,
    executedVersion: top.executedVersion,
    commit: top.commit,
    releasedAt: release?.firstStart as number | undefined,
    failedStatuses: new Set(failed.map((row) => row['query.status'])),
    everyFailedResumed: failed.every((row) => typeof row.cursorAfter === 'number'),
    otherKeysFailing: run('errors-by-key-and-input', events).filter(
      (row) => row.keyId !== top.keyId && (row.status as number) >= 500,
    ),
    refusals: run('refusals-by-key', events),
  };
};

let server: LocalServer;
let events: LogEvent[];
/** What the test planted and did, to hold the analysis against: never handed to `analyse`. */
const truth = { keyId: '', revokedKeyId: '', revokedRefusals: 0, firstFaultSent: 0, firstFaultAnswered: 0 };

beforeAll(async () => {
  server = await startLocalServer(
    // The deployed log level; no authorizer cache, so that every refusal is an authorizer call.
    { LOG_LEVEL: 'INFO', PETSTORE_AUTHORIZER_CACHE_TTL: '0' },
    { entry: 'test/support/planted-fault-server.ts', script: 'infra/local/server.ts' },
  );
  const dynamodb = embeddedDynamoDB(server.dataDir);
  const [mobile, web, batch] = await Promise.all(
    ['mobile app', 'web shop', 'nightly batch'].map((label) => dynamodb.keys.create(label)),
  );
  truth.keyId = batch!.keyId;
  truth.revokedKeyId = web!.keyId;
  const json = { 'Content-Type': 'application/json' };
  const statuses = ['available', 'pending', 'sold'] as const;
  /** Sends as `key`; the web shop's refusals are counted once its key is revoked. */
  const send = async (key: { key: string; keyId: string }, target: string, options: RequestOptions = {}) => {
    const reply = await call(server, target, { ...options, authorization: bearer(key.key) });
    if (key.keyId === truth.revokedKeyId && reply.status === 401) truth.revokedRefusals++;
    return reply;
  };
  const follow = async (key: { key: string; keyId: string }, first: string) => {
    const page = await send(key, first);
    const link = /<\/v1([^>]+)>; rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
    if (!link) return;
    const sent = Date.now();
    const next = await send(key, link);
    if (next.status >= 500 && !truth.firstFaultSent)
      Object.assign(truth, { firstFaultSent: sent, firstFaultAnswered: Date.now() });
  };
  for (let round = 0; round < 8; round++) {
    for (const [i, key] of [mobile!, web!, batch!].entries())
      await send(key, '/pets', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ name: `pet ${round}.${i}`, categoryId: 1, status: statuses[(round + i) % 3] }),
      });
    // Half way, the web shop's key is revoked: from then on, each of its requests is refused.
    if (round === 4) await dynamodb.keys.revoke(web!.keyId);
    // The mobile app pages through everything, and makes a mistake now and then (400s).
    await follow(mobile!, '/pets?limit=2');
    if (round % 3 === 0) await send(mobile!, '/pets?limit=0');
    // The web shop shows first pages by status, and looks animals up.
    await send(web!, '/pets?status=available&limit=2');
    await send(web!, '/pets/1');
    // The batch reads one status at a time: from round 3 on, through follow-up pages.
    await send(batch!, `/pets?status=${statuses[round % 3]}&limit=2`);
    if (round >= 3) await follow(batch!, `/pets?status=${statuses[round % 3]}&limit=1`);
  }
  dynamodb.client.destroy();
  await server.stop();
  events = file(server.output());
}, 180_000);

afterAll(() => disposeServer(server));

describe('the on-call drill: from the output alone, with the runbook’s queries', () => {
  it('finds the operation, the key and the input shape that fail', () => {
    const found = analyse(events);
    expect(found.operation).toBe('listPets');
    expect(found.keyId).toBe(truth.keyId);
    expect(found.status).toBe(500);
    // A filtered listing's follow-up page: status and cursor; its first pages and others' paging are fine.
    expect(found.trigger).toEqual(['cursor&limit&status']);
    expect(found.cursorSent).toBe(true);
    expect(found.everyFailedResumed).toBe(true);
    expect(found.failedStatuses.size).toBeGreaterThan(1);
    expect(found.otherKeysFailing).toEqual([]);
  });

  it('says since when, and which version and commit answered', () => {
    const found = analyse(events);
    expect(truth.firstFaultSent).toBeGreaterThan(0);
    // The output's clock is the server's, to the millisecond: between sending and the answer.
    expect(found.since).toBeGreaterThanOrEqual(truth.firstFaultSent);
    expect(found.since).toBeLessThanOrEqual(truth.firstFaultAnswered);
    expect(found.executedVersion).toBe('$LATEST');
    const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' }).trim();
    expect(found.commit).toMatch(new RegExp(`^${head}(-dirty)?$`));
    // The version began to serve before the fault: the deploy marker says when.
    expect(found.releasedAt).toBeLessThanOrEqual(found.since);
  });

  it('counts the revoked key’s refusals by key id, and finds what each refused call asked', () => {
    const { refusals } = analyse(events);
    expect(refusals).toEqual([
      expect.objectContaining({ keyId: truth.revokedKeyId, reason: 'revoked', refusals: truth.revokedRefusals }),
    ]);
    // The runbook's own query, as it prints it, from one refusal's authorizer call to its access-log line.
    const block = /```\n(filter authorizerRequestId[^`]+)```/.exec(section("A refused key's requests") ?? '')![1]!;
    const call = run('refusals-by-key', events, 'filter message = "authorization" and outcome = "deny"')[0]!;
    const query = block.replace('<function_request_id>', String(call.function_request_id));
    const access = runQuery(
      query,
      events.filter((e) => e['@log'] === 'accessLog'),
    );
    expect(access).toHaveLength(1);
    expect(access[0]).toMatchObject({
      status: 401,
      httpMethod: expect.any(String),
      path: expect.stringMatching(/^\/v1\/pets/),
    });
  });
});
