// The HTTP error model: typed errors thrown anywhere, turned into the contract's
// Error body in one place (shared/lambda/middleware.ts, errorHandler). The fixed texts
// and the Retry-After of the errors API Gateway also answers by itself live here once;
// shared/api/gateway-responses.ts reads them.
import type { z } from 'zod/mini';
import type { ErrorCode, ErrorDetail } from './schemas.ts';

/** Seconds a client should wait before retrying a 429 or a 503. */
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

export class HttpError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: ErrorCode,
    message: string,
    options: { details?: ErrorDetail[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

export class BadRequestError extends HttpError {
  constructor(message: string, details?: ErrorDetail[]) {
    super(400, 'BAD_REQUEST', message, details ? { details } : {});
  }
}

/** The same refusal API Gateway answers for a missing or rejected key. */
export class UnauthorizedError extends HttpError {
  constructor() {
    super(401, 'UNAUTHORIZED', FIXED_MESSAGES.UNAUTHORIZED, { headers: { 'WWW-Authenticate': 'Bearer' } });
  }
}

export class NotFoundError extends HttpError {
  constructor(message: string) {
    super(404, 'NOT_FOUND', message);
  }
}

export class PayloadTooLargeError extends HttpError {
  constructor(limitBytes: number) {
    super(413, 'PAYLOAD_TOO_LARGE', `request body must not exceed ${limitBytes} bytes`);
  }
}

export class UnsupportedMediaTypeError extends HttpError {
  constructor(message = 'Content-Type must be application/json') {
    super(415, 'UNSUPPORTED_MEDIA_TYPE', message);
  }
}

/** An earlier request with the same Idempotency-Key is still running: retry when it has answered. */
export class ConflictError extends HttpError {
  constructor(message: string) {
    super(409, 'CONFLICT', message, { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } });
  }
}

/** The request is well-formed but cannot be honoured as sent (an Idempotency-Key reused with another body). */
export class UnprocessableEntityError extends HttpError {
  constructor(message: string) {
    super(422, 'UNPROCESSABLE_ENTITY', message);
  }
}

/** The database is throttling or unreachable: the client may retry after a short wait. */
export class ServiceUnavailableError extends HttpError {
  constructor(cause: unknown) {
    super(503, 'SERVICE_UNAVAILABLE', FIXED_MESSAGES.SERVICE_UNAVAILABLE, {
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      cause,
    });
  }
}

/** The function ran out of time (middy answers just before the Lambda deadline). */
export class GatewayTimeoutError extends HttpError {
  constructor(cause: unknown) {
    super(504, 'GATEWAY_TIMEOUT', FIXED_MESSAGES.GATEWAY_TIMEOUT, { cause });
  }
}

/** Turns zod issues into a 400 whose message reads as a sentence and whose details name each field. */
export const validationError = (error: z.core.$ZodError, location?: string): BadRequestError => {
  const all: ErrorDetail[] = error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ field: [...issue.path, key].join('.'), message: 'is not allowed' }));
    }
    return [{ field: issue.path.join('.') || (location ?? 'request'), message: issue.message }];
  });
  // One rule can raise two issues (e.g. 2^53 is both unsafe and too large): say it once.
  const details = all.filter((d, i) => all.findIndex((o) => o.field === d.field && o.message === d.message) === i);
  const message = details.map((detail) => `${detail.field} ${detail.message}`).join('; ');
  return new BadRequestError(message, details);
};
