// The log lines on-call reads, defined once: the functions write them (shared/observability/telemetry.ts)
// and the saved Logs Insights queries (infra/monitoring/queries.ts) read the same names.
// A test parses real output and checks every field a query reads is there.

import type { OperationId } from '../api/routes.ts';
import type { ErrorCode } from '../api/schemas.ts';
import type { AuthFailureReason } from './metric-names.ts';

/** `message` of the one line each HTTP function writes per request. */
export const REQUEST_SUMMARY_MESSAGE = 'request';
/** `message` of the one line the authorizer writes per invocation. */
export const AUTHORIZER_SUMMARY_MESSAGE = 'authorization';
/**
 * `message` of the deploy marker: a function's first line in a new execution environment, naming
 * the version and commit it runs, so that "since the release at 00:31" is one query.
 */
export const ENVIRONMENT_START_MESSAGE = 'execution environment started';

/** What the deploy marker and every request's line say of the code that ran. */
export interface CodeVersion {
  /** The function version that answered: a number deployed, `$LATEST` on the local stage. */
  executedVersion: string;
  /** The commit the function was built from (`-dirty` when the tree had changes). */
  commit: string;
}

/** A request's non-secret inputs, on its summary line and on a fault's ERROR line. */
export interface RequestInputs extends CodeVersion {
  /** Path parameters as received (`{ petId: "7" }`); absent on a route without any. */
  pathParameters?: Record<string, string>;
  /** Query parameters as received, the cursor left out; a repeated one as its values in order. */
  query?: Record<string, string | string[]>;
  /** The names of the query parameters sent, sorted, joined by `&` (`cursor&limit&status`); absent for none. */
  queryShape?: string;
  /** Whether a paging cursor was sent (never the cursor itself). */
  cursorSent: boolean;
  /** The position the cursor resumes after (the last id served before it); absent without a readable cursor. */
  cursorAfter?: number;
}

export interface RequestSummary extends RequestInputs {
  operation: OperationId;
  /** The HTTP status the function answered. */
  status: number;
  /** The Error body's `code`; absent on success. */
  errorCode?: ErrorCode | undefined;
  latencyMs: number;
  /** The caller's key id (never the key). */
  keyId?: string | undefined;
  /** API Gateway's request id: the client's `requestId`. On every line of the request, not only this one. */
  requestId: string;
}

type AuthorizerOutcome = 'allow' | 'deny' | 'error';

/**
 * A TOKEN authorizer's event has no request id and no source IP: those are in the access log,
 * whose `authorizerRequestId` is this line's `function_request_id` (infra/access-log.ts).
 */
export interface AuthorizerSummary extends CodeVersion {
  outcome: AuthorizerOutcome;
  reason?: AuthFailureReason | undefined;
  /** Known only when the key was accepted. */
  keyId?: string | undefined;
  latencyMs: number;
  /** The method ARN that asked: which stage, method and path (never the token). */
  methodArn: string;
}

type NamesOf<T> = { readonly [K in keyof T]-?: K };

/** Field names as Logs Insights discovers them in the functions' JSON lines. */
export const LOG_FIELDS = {
  ...({
    operation: 'operation',
    status: 'status',
    errorCode: 'errorCode',
    latencyMs: 'latencyMs',
    keyId: 'keyId',
    requestId: 'requestId',
    pathParameters: 'pathParameters',
    query: 'query',
    queryShape: 'queryShape',
    cursorSent: 'cursorSent',
    cursorAfter: 'cursorAfter',
    executedVersion: 'executedVersion',
    commit: 'commit',
  } as const satisfies NamesOf<RequestSummary>),
  ...({
    outcome: 'outcome',
    reason: 'reason',
    methodArn: 'methodArn',
  } as const satisfies Partial<NamesOf<AuthorizerSummary>>),
  // On every line: Powertools' Logger writes them, and the summary line (summary-line.ts) the same.
  message: 'message',
  level: 'level',
  timestamp: 'timestamp',
  functionRequestId: 'function_request_id',
  coldStart: 'cold_start',
  functionName: 'function_name',
  // An error logged as `{ error }`: Powertools writes its name, message and stack.
  errorName: 'error.name',
  errorMessage: 'error.message',
  errorStack: 'error.stack',
} as const;
