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

export interface RequestSummary {
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

/** A TOKEN authorizer's event has no request id and no source IP: those are in the access log. */
export interface AuthorizerSummary {
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
  } as const satisfies NamesOf<RequestSummary>),
  ...({
    outcome: 'outcome',
    reason: 'reason',
    methodArn: 'methodArn',
  } as const satisfies Partial<NamesOf<AuthorizerSummary>>),
  // On every line: Powertools' Logger writes them, and the summary line (summary-line.ts) the same.
  message: 'message',
  level: 'level',
  coldStart: 'cold_start',
  functionName: 'function_name',
  // An error logged as `{ error }`: Powertools writes its name, message and stack.
  errorName: 'error.name',
  errorMessage: 'error.message',
  errorStack: 'error.stack',
} as const;
