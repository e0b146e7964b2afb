// What the emulated gateway writes back: a function's proxy result, a gateway response for an
// error (shared/api/gateway-responses.ts), and the answers to what Node's HTTP parser refuses.
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { type GatewayResponseType, gatewayErrorBody, gatewayResponses } from '../../shared/api/gateway-responses.ts';
import type { ErrorBody } from '../../shared/api/schemas.ts';
import type { AccessLogLine } from '../access-log.ts';
import { GatewayError } from './gateway-error.ts';
import { closeAfterAnswer, closesConnection } from './request-body.ts';

/** The gateway response for `error` (a GatewayError's type, else DEFAULT_5XX), named in the access log line too. */
export const gatewayErrorResult = (error: unknown, requestId: string, log: AccessLogLine): APIGatewayProxyResult => {
  const type: GatewayResponseType = error instanceof GatewayError ? error.type : 'DEFAULT_5XX';
  const message = error instanceof GatewayError ? error.message : 'Internal server error';
  log.errorResponseType = type;
  log.errorMessage = message;
  const { status, headers } = gatewayResponses[type];
  const body: ErrorBody = gatewayErrorBody(type, requestId, message);
  if (error instanceof GatewayError && error.own) body.message = message;
  if (error instanceof GatewayError && error.detail) body.details = [error.detail];
  return {
    statusCode: status,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  };
};

export const writeResult = (res: ServerResponse, requestId: string, result: APIGatewayProxyResult) => {
  const headers: Record<string, string | string[]> = { 'Content-Type': 'application/json' };
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) headers[name] = values.map(String);
  headers['x-amzn-RequestId'] = requestId;
  // A text body goes as a string: Node then sends it in one write with the head, where a
  // Buffer makes a second chunk and a writev, which cost 4 times as much per response here.
  const body = result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64') : (result.body ?? '');
  headers['Content-Length'] = String(Buffer.byteLength(body));
  // What is left of a body nobody will read is not read: the answer closes the connection
  // (Connection: close), as RFC 9112 §9.6 lets a server do, and requests after it go unanswered.
  if (closesConnection(res.req)) closeAfterAnswer(res);
  res.writeHead(result.statusCode, headers);
  res.end(body);
};

/** A gateway response written straight to a connection Node's HTTP server gave up on; then closes it. */
const answerRaw = (socket: Duplex, type: GatewayResponseType, message: string): void => {
  const requestId = randomUUID();
  const body = JSON.stringify(gatewayErrorBody(type, requestId, message));
  const { status, headers } = gatewayResponses[type];
  const extra = Object.entries(headers ?? {}).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nx-amzn-RequestId: ${requestId}\r\n` +
      `${extra.join('')}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
};

/**
 * What Node's HTTP parser refuses before any handler runs (bytes outside HTTP's
 * grammar in the request line or a header, headers over 16 KiB) still gets the
 * contract's Error body, instead of Node's bare `400`/`431` with no body. A method
 * Node's parser does not know (`FOO`, lower-case `get`) names no route: 404, as API
 * Gateway answers any method it has no resource for.
 */
export const answerClientError = (error: NodeJS.ErrnoException, socket: Duplex): void => {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  if (error.code === 'HPE_INVALID_METHOD') {
    answerRaw(socket, 'MISSING_AUTHENTICATION_TOKEN', 'Missing Authentication Token');
    return;
  }
  const message =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? 'Request headers are too large'
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'The request was not received in time'
        : 'Malformed HTTP request';
  answerRaw(socket, 'DEFAULT_4XX', message);
};

/** `CONNECT`, which Node hands over as a tunnel request, names no route either: 404. */
export const answerConnect = (_req: IncomingMessage, socket: Duplex): void =>
  answerRaw(socket, 'MISSING_AUTHENTICATION_TOKEN', 'Missing Authentication Token');
