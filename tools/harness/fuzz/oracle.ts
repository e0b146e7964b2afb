// What every answer to a fuzzed request must satisfy: never a 5xx; every error in
// the contract's Error body; successes in the Animal shape; and nothing leaked: no
// key, stack trace, AWS error name or table name that the request did not carry.
import { matchRoute } from '../../../infra/local/route-matcher.ts';
import { answers, type Route } from '../../../shared/api/routes.ts';
import { ErrorBody, type Pet } from '../../../shared/api/schemas.ts';
import { tables } from '../../../shared/dynamodb/tables.ts';
import { successSchema } from '../../openapi.ts';
import type { Answer } from '../http-client.ts';
import type { FuzzRequest } from './requests.ts';

const CODE_STATUS: Record<string, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_REQUESTS: 429,
};
const ERROR_FIELDS = new Set(['code', 'message', 'status', 'requestId', 'details']);
/** The refusals an operation's input can earn (shared/api/routes.ts, answers). */
const INPUT_REFUSALS = [400, 404, 413, 415];
/**
 * What an operation may answer to an authenticated request, whatever its input: its success and
 * its input's refusals, as its route entry says; 413 on any method (a body over 16 KiB).
 */
const allowedStatuses = (r: Route): number[] => [
  r.statuses[0],
  ...answers(r).filter((status) => INPUT_REFUSALS.includes(status)),
  413,
];

const LEAKS: ReadonlyArray<[string, RegExp]> = [
  ['stack trace', /\bat\s+\S+\s+\(|\bat\s+(?:file|node):|\.(?:ts|js|mjs|cjs):\d+|node_modules/g],
  ['AWS or JavaScript error name', /\b[A-Z][A-Za-z]*(?:Exception|Error)\b/g],
  ['table name', new RegExp(`\\b(?:${tables.map((t) => t.name).join('|')})\\b`, 'gi')],
];

/** The parts of a request an error message may legitimately repeat: query and body, as text and as parsed JSON. */
const echoable = (request: FuzzRequest): string => {
  const parts: string[] = [];
  const query = request.path.split('?').slice(1).join('?');
  parts.push(query);
  try {
    parts.push(decodeURIComponent(query.replace(/\+/g, ' ')));
  } catch {
    // undecodable: the raw form above is what a message could repeat
  }
  const text = request.body?.toString('utf8') ?? '';
  parts.push(text);
  const collect = (value: unknown): void => {
    if (typeof value === 'string') parts.push(value);
    else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        parts.push(k);
        collect(v);
      }
    }
  };
  try {
    collect(JSON.parse(text));
  } catch {
    // not JSON: nothing more to echo
  }
  return parts.join('\n').toLowerCase();
};

const header = (answer: Answer, name: string): string | undefined => {
  const value = answer.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

/** Node's default limit on the request line and headers together. */
const MAX_HEADER_BYTES = 16 * 1024;
/** A request line with bytes outside visible ASCII, or headers over the limit: refused before routing. */
const outsideHttp = (request: FuzzRequest): boolean =>
  /[^\x21-\x7e]/.test(request.path) ||
  Object.entries(request.headers).reduce(
    (sum, [name, value]) => sum + name.length + value.length + 4,
    request.path.length,
  ) > MAX_HEADER_BYTES;

export interface OracleSecrets {
  key: string;
}

/** Every way `answer` breaks the rules; empty when it keeps them all. */
export const violations = (request: FuzzRequest, answer: Answer, secrets: OracleSecrets): string[] => {
  const found: string[] = [];
  const { status } = answer;
  if (status >= 500) found.push(`${status}: a server error`);
  if (!/^application\/json\b/i.test(header(answer, 'content-type') ?? ''))
    found.push(`Content-Type is ${header(answer, 'content-type')}`);
  const requestId = header(answer, 'x-amzn-requestid');
  if (!requestId) found.push('no x-amzn-RequestId header');
  if (answer.body.includes(secrets.key)) found.push('the body contains the key');

  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    found.push('the body is not JSON');
    return found;
  }

  // What the route table and the Authorization header say the answer must be.
  const pathname = new URL(`http://localhost${request.path}`).pathname;
  const match = matchRoute(request.method, pathname);
  const authorized = new RegExp(`^bearer +${secrets.key}$`, 'i').test(request.headers.Authorization ?? '');
  if (outsideHttp(request)) {
    if (status !== 400) found.push(`${status} for a request Node's HTTP parser refuses (expected 400)`);
  } else {
    if (!match && status !== 404) found.push(`${status} for a route that does not exist (expected 404)`);
    if (match && !authorized && status !== 401)
      found.push(`${status} for a request without a valid key (expected 401)`);
    if (match && authorized && !allowedStatuses(match.route).includes(status)) {
      found.push(`${status} is not an answer of ${match.route.operationId}`);
    }
  }

  if (status >= 400) {
    const parsed = ErrorBody.safeParse(body);
    if (!parsed.success) return [...found, `not the Error body: ${answer.body.slice(0, 200)}`];
    const error = parsed.data;
    const extra = Object.keys(body as object).filter((field) => !ERROR_FIELDS.has(field));
    if (extra.length) found.push(`Error body has extra fields ${extra.join(', ')}`);
    if (error.status !== status) found.push(`Error body status ${error.status} ≠ HTTP ${status}`);
    if (CODE_STATUS[error.code] !== status) found.push(`code ${error.code} with HTTP ${status}`);
    if (error.requestId !== requestId) found.push('Error body requestId ≠ x-amzn-RequestId');
    if (error.details && error.code !== 'BAD_REQUEST') found.push(`details on a ${error.code}`);
    if (status === 401 && header(answer, 'www-authenticate') !== 'Bearer')
      found.push('401 without WWW-Authenticate: Bearer');
    const echo = echoable(request);
    for (const [what, pattern] of LEAKS) {
      for (const [leak] of answer.body.matchAll(pattern)) {
        if (!echo.includes(leak.toLowerCase())) found.push(`leaks a ${what}: ${leak}`);
      }
    }
  } else if (match) {
    // The success body's schema as the operation's route entry names it (`response`).
    const schema = successSchema(match.route.operationId);
    if (schema && !schema.safeParse(body).success)
      found.push(`not a ${match.route.operationId} answer: ${answer.body.slice(0, 200)}`);
    if (match.route.operationId === 'createPet' && !header(answer, 'location')?.endsWith(`/pets/${(body as Pet).id}`)) {
      found.push('201 without the Location of the new animal');
    }
  }
  return found;
};
