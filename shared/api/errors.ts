// The HTTP error model: typed errors thrown anywhere, turned into the contract's
// Error body in one place (shared/lambda/middleware.ts, errorHandler). Each code's status,
// fixed text and headers are stated here once (ERRORS); the typed errors below and the
// errors API Gateway answers by itself (shared/api/gateway-responses.ts) are made from it.
import type { z } from 'zod/mini';
import { escapeControlCharacters } from './control-characters.ts';
import type { ErrorCode, ErrorDetail } from './schemas.ts';

/** Seconds a client should wait before retrying a 409, a 429 or a 503. */
export const RETRY_AFTER_SECONDS = 1;

/** Messages that say nothing of the request: the same whether a function or API Gateway answers. */
export const FIXED_MESSAGES = {
  INTERNAL_ERROR: 'Internal error; quote the requestId when reporting it',
  SERVICE_UNAVAILABLE: 'The service is temporarily unavailable; retry later',
  BAD_GATEWAY: 'The service failed before answering; quote the requestId when reporting it',
  GATEWAY_TIMEOUT: 'The service did not answer in time',
  UNAUTHORIZED: 'A valid API key is required: Authorization: Bearer <key>',
  FORBIDDEN: "This key's scope does not allow this operation",
} as const satisfies Partial<Record<ErrorCode, string>>;

/** What an error code always means on the wire, whoever answers it. */
export interface ErrorShape {
  readonly status: number;
  /** Its fixed text, when it has one; otherwise each error says what went wrong. */
  readonly message?: string;
  /** Headers every answer with this code carries. */
  readonly headers?: Readonly<Record<string, string>>;
}

const retryAfter = { 'Retry-After': String(RETRY_AFTER_SECONDS) };

/** Every error code of docs/api.md ("Errors"): its HTTP status, fixed text and headers. */
export const ERRORS = {
  BAD_REQUEST: { status: 400 },
  UNAUTHORIZED: { status: 401, message: FIXED_MESSAGES.UNAUTHORIZED, headers: { 'WWW-Authenticate': 'Bearer' } },
  FORBIDDEN: { status: 403, message: FIXED_MESSAGES.FORBIDDEN },
  NOT_FOUND: { status: 404 },
  CONFLICT: { status: 409, headers: retryAfter },
  PAYLOAD_TOO_LARGE: { status: 413 },
  UNSUPPORTED_MEDIA_TYPE: { status: 415 },
  UNPROCESSABLE_ENTITY: { status: 422 },
  TOO_MANY_REQUESTS: { status: 429, headers: retryAfter },
  INTERNAL_ERROR: { status: 500, message: FIXED_MESSAGES.INTERNAL_ERROR },
  BAD_GATEWAY: { status: 502, message: FIXED_MESSAGES.BAD_GATEWAY },
  SERVICE_UNAVAILABLE: { status: 503, message: FIXED_MESSAGES.SERVICE_UNAVAILABLE, headers: retryAfter },
  GATEWAY_TIMEOUT: { status: 504, message: FIXED_MESSAGES.GATEWAY_TIMEOUT },
} as const satisfies Record<ErrorCode, ErrorShape>;

export class HttpError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;

  /** Its status and headers are the code's (ERRORS); its message is the code's fixed text unless given. */
  constructor(
    code: ErrorCode,
    message?: string,
    options: { details?: ErrorDetail[] | undefined; cause?: unknown } = {},
  ) {
    const shape: ErrorShape = ERRORS[code];
    super(message ?? shape.message ?? code, { cause: options.cause });
    this.name = new.target.name;
    this.status = shape.status;
    this.code = code;
    this.details = options.details;
    this.headers = { ...shape.headers };
  }
}

export class BadRequestError extends HttpError {
  constructor(message: string, details?: ErrorDetail[]) {
    super('BAD_REQUEST', message, { details });
  }
}

/** The same refusal API Gateway answers for a missing or rejected key. */
export class UnauthorizedError extends HttpError {
  constructor() {
    super('UNAUTHORIZED');
  }
}

export class NotFoundError extends HttpError {
  constructor(message: string) {
    super('NOT_FOUND', message);
  }
}

export class PayloadTooLargeError extends HttpError {
  constructor(limitBytes: number) {
    super('PAYLOAD_TOO_LARGE', `request body must not exceed ${limitBytes} bytes`);
  }
}

export class UnsupportedMediaTypeError extends HttpError {
  constructor(message = 'Content-Type must be application/json') {
    super('UNSUPPORTED_MEDIA_TYPE', message);
  }
}

/** An earlier request with the same Idempotency-Key is still running: retry when it has answered. */
export class ConflictError extends HttpError {
  constructor(message: string) {
    super('CONFLICT', message);
  }
}

/** The request is well-formed but cannot be honoured as sent (an Idempotency-Key reused with another body). */
export class UnprocessableEntityError extends HttpError {
  constructor(message: string) {
    super('UNPROCESSABLE_ENTITY', message);
  }
}

/** The database is throttling or unreachable: the client may retry after a short wait. */
export class ServiceUnavailableError extends HttpError {
  constructor(cause: unknown) {
    super('SERVICE_UNAVAILABLE', undefined, { cause });
  }
}

/** The function ran out of time (middy answers just before the Lambda deadline). */
export class GatewayTimeoutError extends HttpError {
  constructor(cause: unknown) {
    super('GATEWAY_TIMEOUT', undefined, { cause });
  }
}

/** Turns zod issues into a 400 whose message reads as a sentence and whose details name each field. */
export const validationError = (error: z.core.$ZodError, location?: string): BadRequestError => {
  const all: ErrorDetail[] = error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        // A name the client chose, echoed: its control characters escaped, as no animal's name may hold one.
        field: escapeControlCharacters([...issue.path, key].join('.')),
        message: 'is not allowed',
      }));
    }
    return [{ field: issue.path.join('.') || (location ?? 'request'), message: issue.message }];
  });
  // One rule can raise two issues (e.g. 2^53 is both unsafe and too large): say it once.
  const details = all.filter((d, i) => all.findIndex((o) => o.field === d.field && o.message === d.message) === i);
  const message = details.map((detail) => `${detail.field} ${detail.message}`).join('; ');
  return new BadRequestError(message, details);
};
