// When DynamoDB is unavailable (throttling, failing on its side, out of reach) and what the
// service makes of it: the typed 503. Apart from client.ts so that a client can be built without
// the API's errors (the bench's floor does: bench/floor/handlers.ts).
import { ServiceUnavailableError } from '../api/errors.ts';

const UNAVAILABLE_ERRORS = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
]);
const NETWORK_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/** True when DynamoDB is throttling, failing on its side, or out of reach: worth a retry later. */
export const isUnavailable = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  const { code, $metadata } = error as Error & { code?: string; $metadata?: { httpStatusCode?: number } };
  return (
    UNAVAILABLE_ERRORS.has(error.name) ||
    (code !== undefined && NETWORK_ERRORS.has(code)) ||
    ($metadata?.httpStatusCode ?? 0) >= 500
  );
};

/** Runs a DynamoDB call, turning unavailability into the typed 503 and leaving other faults as they are. */
export const withAvailability = async <T>(call: () => Promise<T>): Promise<T> => {
  try {
    return await call();
  } catch (error) {
    throw isUnavailable(error) ? new ServiceUnavailableError(error) : error;
  }
};
