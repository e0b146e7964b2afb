// The saved Logs Insights queries of each stage: what on-call opens first. Pure data
// (no CDK): the monitoring construct turns each into an AWS::Logs::QueryDefinition on
// the log groups of its sources, and a test runs the local server and checks that every
// field each query reads is present in the real lines of those sources.

import { type OperationId, routes } from '../../shared/api/routes.ts';
import {
  AUTHORIZER_SUMMARY_MESSAGE,
  ENVIRONMENT_START_MESSAGE,
  LOG_FIELDS as F,
  REQUEST_SUMMARY_MESSAGE,
} from '../../shared/observability/log-fields.ts';
import { accessLogFields } from '../access-log.ts';

/** A log group of the stage: the API's access log, or a function's log group. */
export type LogSource = 'accessLog' | 'authorizer' | OperationId;

export interface SavedQuery {
  /** The query's name below the stage's folder (`PetStore-staging/…` in the console). */
  readonly name: string;
  readonly sources: readonly LogSource[];
  readonly queryString: string;
}

/** Access-log field names, checked against infra/access-log.ts by the compiler. */
const A = Object.fromEntries(Object.keys(accessLogFields).map((name) => [name, name])) as {
  readonly [K in keyof typeof accessLogFields]: K;
};

const operations = routes.map((route) => route.operationId);
const deprecatedOperations = routes.filter((route) => route.deprecation).map((route) => route.operationId);

/** Saved queries cannot take parameters: on-call replaces this before running. */
const REQUEST_ID_PLACEHOLDER = 'PASTE-THE-REQUEST-ID-HERE';

const lines = (...parts: string[]) => parts.join('\n| ');

export const savedQueries: readonly SavedQuery[] = [
  {
    // The client's error body names its requestId: the gateway's line and every line of
    // the function that answered carry it (the TOKEN authorizer never sees it).
    name: 'request-by-id',
    sources: ['accessLog', ...operations],
    queryString: lines(
      `fields @timestamp, @log, ${F.message}, ${A.httpMethod}, ${A.path}, ${F.status}, ${A.errorResponseType}, ${F.errorCode}, ${F.operation}, ${F.keyId}, ${F.queryShape}, ${F.cursorAfter}, ${F.executedVersion}, ${F.commit}, ${F.latencyMs}, ${A.responseLatency}, ${A.authorizerRequestId}, ${F.errorMessage}, ${F.errorStack}`,
      `filter ${F.requestId} = "${REQUEST_ID_PLACEHOLDER}"`,
      'sort @timestamp asc',
    ),
  },
  {
    // Pick the time range in the console; error lines carry the stack, summary lines the code. A
    // WARN line is a step that failed while the answer did not (the shard record not re-read, a
    // key's last use not recorded): the ShardRecordReadFailures and KeyUseRecordFailures alarms
    // send on-call here for them.
    name: 'errors',
    sources: ['accessLog', ...operations, 'authorizer'],
    queryString: lines(
      `fields @timestamp, @log, ${F.level}, ${F.requestId}, ${F.operation}, ${F.keyId}, ${F.status}, ${F.errorCode}, ${A.errorResponseType}, ${F.queryShape}, ${F.executedVersion}, ${F.message}, ${F.errorName}, ${F.errorMessage}, ${F.errorStack}`,
      `filter ${F.level} in ["ERROR", "WARN"] or ${F.status} >= 500 or ${F.outcome} = "error"`,
      'sort @timestamp desc',
      'limit 200',
    ),
  },
  {
    // As the client saw it: from the gateway's first byte to its last, authorizer included.
    name: 'slowest-requests',
    sources: ['accessLog'],
    queryString: lines(
      `fields @timestamp, ${A.requestId}, ${A.httpMethod}, ${A.resourcePath}, ${A.status}, ${A.responseLatency}, ${A.integrationLatency}, ${A.keyId}`,
      `filter ispresent(${A.responseLatency})`,
      `sort ${A.responseLatency} desc`,
      'limit 50',
    ),
  },
  {
    // A function's 4xx is counted from its summary line (the code of its body); a 4xx the
    // gateway answered itself (401, unknown route, 429, …) from the access log's responseType.
    // A function's 4xx also has an access-log line, with no responseType: not counted twice.
    name: 'client-errors-by-code',
    sources: ['accessLog', ...operations],
    queryString: lines(
      `fields coalesce(${F.errorCode}, ${A.errorResponseType}) as code`,
      `filter ${F.status} >= 400 and ${F.status} < 500 and (${F.message} = "${REQUEST_SUMMARY_MESSAGE}" or ${A.errorResponseType} like /^[A-Z_]+$/)`,
      `stats count(*) as requests by ${F.status}, code`,
      'sort requests desc',
    ),
  },
  {
    // "One client sees errors on one operation": the failing answers split by operation, key and
    // the shape of the request's inputs (which query parameters, whether it was a follow-up page),
    // with when they began and the version and commit that gave them.
    name: 'errors-by-key-and-input',
    sources: operations,
    queryString: lines(
      `filter ${F.message} = "${REQUEST_SUMMARY_MESSAGE}" and ${F.status} >= 400`,
      `stats count(*) as errors, min(@timestamp) as firstSeen, max(@timestamp) as lastSeen by ${F.operation}, ${F.keyId}, ${F.status}, ${F.errorCode}, ${F.queryShape}, ${F.cursorSent}, ${F.executedVersion}, ${F.commit}`,
      'sort errors desc',
      'limit 100',
    ),
  },
  {
    // Every answer by the same split: beside errors-by-key-and-input, which inputs of one key
    // and operation fail and which do not (the trigger is what only the failing ones share).
    name: 'requests-by-key-and-input',
    sources: operations,
    queryString: lines(
      `filter ${F.message} = "${REQUEST_SUMMARY_MESSAGE}"`,
      `stats count(*) as requests, min(@timestamp) as firstSeen, max(@timestamp) as lastSeen by ${F.operation}, ${F.keyId}, ${F.queryShape}, ${F.cursorSent}, ${F.status}`,
      `sort ${F.operation} asc`,
      'limit 200',
    ),
  },
  {
    // The failing requests themselves, oldest first: their parameters as sent, where a
    // follow-up page resumed, the version that answered, and the requestId to follow.
    name: 'failed-requests-with-inputs',
    sources: operations,
    queryString: lines(
      `fields @timestamp, ${F.operation}, ${F.keyId}, ${F.status}, ${F.errorCode}, query.status, query.limit, ${F.cursorSent}, ${F.cursorAfter}, pathParameters.petId, ${F.executedVersion}, ${F.commit}, ${F.requestId}`,
      `filter ${F.message} = "${REQUEST_SUMMARY_MESSAGE}" and ${F.status} >= 500`,
      'sort @timestamp asc',
      'limit 200',
    ),
  },
  {
    // The deploy markers: when each version and commit began to serve, function by function.
    // "Did it start with a release?": compare a fault's firstSeen with its version's firstStart.
    name: 'releases',
    sources: [...operations, 'authorizer'],
    queryString: lines(
      `filter ${F.message} = "${ENVIRONMENT_START_MESSAGE}"`,
      `stats min(@timestamp) as firstStart, max(@timestamp) as lastStart, count(*) as environments by ${F.functionName}, ${F.executedVersion}, ${F.commit}`,
      'sort firstStart desc',
    ),
  },
  {
    // A refused key's 401 has no key id in the access log: the authorizer's line names it. One
    // line per authorizer call (a refusal API Gateway answers from its cache makes none).
    name: 'refusals-by-key',
    sources: ['authorizer'],
    queryString: lines(
      `filter ${F.message} = "${AUTHORIZER_SUMMARY_MESSAGE}" and ${F.outcome} = "deny"`,
      `stats count(*) as refusals, min(@timestamp) as first, max(@timestamp) as last by ${F.keyId}, ${F.reason}`,
      'sort refusals desc',
    ),
  },
  {
    // Who must be told before the sunset.
    name: 'deprecated-callers-by-key',
    sources: deprecatedOperations,
    queryString: lines(
      `filter ${F.message} = "${REQUEST_SUMMARY_MESSAGE}"`,
      `stats count(*) as calls, latest(@timestamp) as lastCall by ${F.operation}, ${F.keyId}`,
      'sort calls desc',
    ),
  },
  {
    // Who is sending the traffic: before throttling the stage or revoking a key.
    name: 'requests-by-key',
    sources: ['accessLog'],
    queryString: lines(`stats count(*) as requests by ${A.keyId}, ${A.sourceIp}`, 'sort requests desc', 'limit 50'),
  },
  {
    // Every refused key is a 401 (gateway responses); the TOKEN authorizer never sees the IP.
    name: 'auth-failures-by-source-ip',
    sources: ['accessLog'],
    queryString: lines(
      `filter ${A.status} = 401`,
      `stats count(*) as failures, latest(@timestamp) as lastSeen by ${A.sourceIp}, ${A.errorResponseType}`,
      'sort failures desc',
      'limit 100',
    ),
  },
];

const KEYWORDS = new Set([
  'fields',
  'filter',
  'stats',
  'sort',
  'limit',
  'display',
  'parse',
  'dedup',
  'by',
  'as',
  'and',
  'or',
  'not',
  'in',
  'like',
  'asc',
  'desc',
]);

/**
 * The log fields a query reads: its identifiers less keywords, functions, aliases it
 * defines, `@` system fields, string and regex literals.
 */
export const fieldsReadBy = (queryString: string): string[] => {
  const code = queryString.replace(/"(?:[^"\\]|\\.)*"/g, ' ').replace(/\/(?:[^/\\]|\\.)+\//g, ' ');
  const aliases = new Set([...code.matchAll(/\bas\s+([A-Za-z_][\w]*)/g)].map((match) => match[1]!));
  const fields = new Set<string>();
  for (const match of code.matchAll(/(?<![\w.@])@?[A-Za-z_][\w.]*(\s*\()?/g)) {
    const [token, call] = [match[0].replace(/\s*\($/, ''), match[1]];
    if (call || token.startsWith('@') || KEYWORDS.has(token) || aliases.has(token)) continue;
    fields.add(token);
  }
  return [...fields];
};
