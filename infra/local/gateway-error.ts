// What the emulated gateway refuses a request with: one of its gateway responses
// (shared/api/gateway-responses.ts), with its own message or a 400's offending field.
import type { GatewayResponseType } from '../../shared/api/gateway-responses.ts';
import { BodyNotReceived } from './request-body.ts';

export class GatewayError extends Error {
  readonly type: GatewayResponseType;
  /** Said in place of the response's fixed text. */
  readonly own: boolean;
  /** A 400's offending field (the contract's `details`). */
  readonly detail: { field: string; message: string } | undefined;
  constructor(type: GatewayResponseType, message: string, own = false, detail?: GatewayError['detail']) {
    super(message);
    this.type = type;
    this.own = own;
    this.detail = detail;
  }
}

/**
 * A body that did not come in time is the contract's 400, naming the body, as Node's own request
 * timeout is (answerClientError): HTTP's 408 has no code in the contract, and a 504 would blame
 * the function for the client's delay. The answer closes the connection (request-body.ts).
 */
export const refuseLateBody = (error: unknown): never => {
  if (!(error instanceof BodyNotReceived)) throw error;
  throw new GatewayError('DEFAULT_4XX', error.message, true, { field: 'body', message: error.detail });
};
