// The gateway's access log line of one request, as the deployed stage writes it from `$context`
// variables (infra/access-log.ts): begun when the request arrives, filled in as it is decided.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { AccessLogLine } from '../access-log.ts';
import type { RequestLine } from './request-line.ts';
import { originForm } from './route-matcher.ts';

/** CLF's time, as $context.requestTime: `29/Nov/2026:01:31:07 +0000`. */
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => String(n).padStart(2, '0');
let clfSecond = Number.NaN;
let clfText = '';
/** Formatted once per second: every request of that second names the same. */
const clfTime = (ms: number): string => {
  const second = Math.floor(ms / 1000);
  if (second !== clfSecond) {
    const d = new Date(ms);
    clfSecond = second;
    clfText = `${two(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} +0000`;
  }
  return clfText;
};

/** What is known of a request when its line begins: what its request line and User-Agent said. */
interface Arrived {
  sourceIp?: string | undefined;
  userAgent?: string | undefined;
  method?: string | undefined;
  /** As sent; undefined when the request line was not read. */
  target?: string | undefined;
  protocol?: string | undefined;
}

const lineOf = (requestId: string, started: number, arrived: Arrived): AccessLogLine => {
  const { target } = arrived;
  const query = target?.indexOf('?') ?? -1;
  return {
    requestId,
    keyId: null,
    requestTime: clfTime(started),
    requestTimeEpoch: started,
    sourceIp: arrived.sourceIp ?? null,
    userAgent: arrived.userAgent ?? null,
    httpMethod: arrived.method ?? null,
    // As sent, without the query string ($context.path has none); the local stage has no stage prefix.
    path: query === -1 ? (target ?? null) : target!.slice(0, query),
    resourcePath: null,
    protocol: arrived.protocol ?? null,
    status: null,
    responseLength: null,
    responseLatency: null,
    integrationLatency: null,
    errorResponseType: null,
    errorMessage: null,
    authorizerRequestId: null,
    authorizerError: null,
    integrationError: null,
    integrationErrorMessage: null,
  };
};

/** The access-log line of a request that just arrived: what is known before anything is decided. */
export const accessLogLine = (req: IncomingMessage, requestId: string, started: number): AccessLogLine =>
  lineOf(requestId, started, {
    sourceIp: req.socket.remoteAddress,
    userAgent: req.headers['user-agent'],
    method: req.method,
    target: req.url ?? '',
    protocol: `HTTP/${req.httpVersion}`,
  });

/**
 * The line of a request Node's parser refused before it made one of it: its request line if the
 * parser's bytes held it (request-line.ts), else no method, path or protocol; never a header.
 */
export const refusedRequestLogLine = (
  socket: Duplex,
  request: RequestLine | undefined,
  requestId: string,
  started: number,
): AccessLogLine =>
  lineOf(requestId, started, {
    sourceIp: (socket as Partial<Socket>).remoteAddress,
    ...request,
    target: request && originForm(request.target), // as the gateway reads it (gateway.ts)
  });
