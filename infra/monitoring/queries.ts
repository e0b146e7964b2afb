// The saved Logs Insights queries of each stage: what on-call opens first. Pure data
// (no CDK): the monitoring construct turns each into an AWS::Logs::QueryDefinition on
// the log groups of its sources, and a test runs the local server and checks that every
// field each query reads is present in the real lines of those sources.

import { type OperationId, routes } from '../../shared/api/routes.ts';
import { LOG_FIELDS as F, REQUEST_SUMMARY_MESSAGE } from '../../shared/observability/log-fields.ts';
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
      `fields @timestamp, @log, ${F.message}, ${A.httpMethod}, ${A.resourcePath}, ${F.status}, ${A.errorResponseType}, ${F.errorCode}, ${F.operation}, ${F.keyId}, ${F.latencyMs}, ${A.responseLatency}, ${F.errorMessage}, ${F.errorStack}`,
      `filter ${F.requestId} = "${REQUEST_ID_PLACEHOLDER}"`,
      'sort @timestamp asc',
    ),
  },
  {
    // Pick the time range in the console; error lines carry the stack, summary lines the code.
    name: 'errors',
    sources: ['accessLog', ...operations, 'authorizer'],
    queryString: lines(
      `fields @timestamp, @log, ${F.requestId}, ${F.operation}, ${F.status}, ${F.errorCode}, ${A.errorResponseType}, ${F.message}, ${F.errorName}, ${F.errorMessage}, ${F.errorStack}`,
      `filter ${F.level} = "ERROR" or ${F.status} >= 500 or ${F.outcome} = "error"`,
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
