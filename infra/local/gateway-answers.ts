// What the emulated gateway writes back: a function's proxy result, a gateway response for an
// error (shared/api/gateway-responses.ts), and the answers to what Node's HTTP parser refuses.
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { type GatewayResponseType, gatewayErrorBody, gatewayResponses } from '../../shared/api/gateway-responses.ts';
import type { ErrorBody } from '../../shared/api/schemas.ts';
import type { AccessLogLine } from '../access-log.ts';
import { accessLogLine, refusedRequestLogLine } from './access-log-line.ts';
import { GatewayError } from './gateway-error.ts';
import {
  closeAfterAnswer,
  closesConnection,
  declaresMoreThanPayloadLimit,
  HEADERS_NOT_RECEIVED,
  overPayloadLimit,
} from './request-body.ts';
import { refusedRequest } from './request-line.ts';

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

/**
 * A gateway response written straight to a connection Node's HTTP server gave up on, then closed;
 * its access log line is written once the answer is with the connection, as the gateway's are.
 */
const answerRaw = (
  socket: Duplex,
  log: AccessLogLine,
  accessLog: (line: AccessLogLine) => void,
  type: GatewayResponseType,
  message: string,
  detail?: { field: string; message: string },
): void => {
  const requestId = log.requestId as string;
  const errorBody: ErrorBody = gatewayErrorBody(type, requestId, message);
  if (detail) errorBody.details = [detail];
  const body = JSON.stringify(errorBody);
  const { status, headers } = gatewayResponses[type];
  const extra = Object.entries(headers ?? {}).map(([name, value]) => `${name}: ${value}\r\n`);
  Object.assign(log, {
    status,
    responseLength: Buffer.byteLength(body),
    responseLatency: Date.now() - (log.requestTimeEpoch as number),
    errorResponseType: type,
    errorMessage: message,
  });
  socket.once('finish', () => accessLog(log));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nx-amzn-RequestId: ${requestId}\r\n` +
      `${extra.join('')}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
};

/**
 * What Node's HTTP parser refuses before any handler runs (bytes outside HTTP's grammar in the
 * request line or a header, framing it cannot trust, headers over 16 KiB or later than
 * HEADERS_TIMEOUT) still gets the contract's Error body, instead of Node's bare `400`/`431` with
 * no body, and its access log line. A method Node's parser does not know (`FOO`, lower-case `get`)
 * names no route: 404, as API Gateway answers any method it has no resource for, unless it
 * declared a body over the payload limit (413 before anything else, as for any other request).
 * `broken`: the request whose body Node refused (a malformed chunk), which the line names.
 */
export const answerClientError = (
  error: NodeJS.ErrnoException,
  socket: Duplex,
  accessLog: (line: AccessLogLine) => void,
  broken?: IncomingMessage,
): void => {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const refused = refusedRequest(error);
  const log = broken
    ? accessLogLine(broken, randomUUID(), Date.now())
    : refusedRequestLogLine(socket, refused.line, randomUUID(), Date.now());
  const answer = (type: GatewayResponseType, message: string, detail?: { field: string; message: string }) =>
    answerRaw(socket, log, accessLog, type, message, detail);
  if (error.code === 'HPE_INVALID_METHOD') {
    if (overPayloadLimit(refused.declaredLength)) answer('REQUEST_TOO_LARGE', 'Request Too Long');
    else answer('MISSING_AUTHENTICATION_TOKEN', 'Missing Authentication Token');
    return;
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') answer('DEFAULT_4XX', 'Request headers are too large');
  // Node raises this for its requestTimeout too (300 s for a whole request), which a body being read
  // never reaches (cut at 10 s: request-body.ts): the headers', but for a body that waited minutes for its turn.
  else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    answer('DEFAULT_4XX', `request headers ${HEADERS_NOT_RECEIVED}`, {
      field: 'headers',
      message: HEADERS_NOT_RECEIVED,
    });
  else answer('DEFAULT_4XX', 'Malformed HTTP request');
};

/** `CONNECT`, which Node hands over as a tunnel request, names no route either: 404 (or 413, as above). */
export const answerConnect = (req: IncomingMessage, socket: Duplex, accessLog: (line: AccessLogLine) => void): void => {
  const log = accessLogLine(req, randomUUID(), Date.now());
  if (declaresMoreThanPayloadLimit(req)) answerRaw(socket, log, accessLog, 'REQUEST_TOO_LARGE', 'Request Too Long');
  else answerRaw(socket, log, accessLog, 'MISSING_AUTHENTICATION_TOKEN', 'Missing Authentication Token');
};
