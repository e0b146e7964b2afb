// The gateway's access log line of one request, as the deployed stage writes it from `$context`
// variables (infra/access-log.ts): begun when the request arrives, filled in as it is decided.
import type { IncomingMessage } from 'node:http';
import type { AccessLogLine } from '../access-log.ts';

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

/** The access-log line of a request that just arrived: what is known before anything is decided. */
export const accessLogLine = (req: IncomingMessage, requestId: string, started: number): AccessLogLine => {
  const target = req.url ?? '';
  const query = target.indexOf('?');
  return {
    requestId,
    keyId: null,
    requestTime: clfTime(started),
    requestTimeEpoch: started,
    sourceIp: req.socket.remoteAddress ?? null,
    userAgent: req.headers['user-agent'] ?? null,
    httpMethod: req.method ?? null,
    // As sent, without the query string ($context.path has none); the local stage has no stage prefix.
    path: query === -1 ? target : target.slice(0, query),
    resourcePath: null,
    protocol: `HTTP/${req.httpVersion}`,
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
