// The smoke suite's view of one stage: each request it sends, the response it got, and the
// rules every response must keep (docs/api.md, "Every response"). Plain fetch, no Node-only
// API: the same code runs from a laptop, in CI and in the stage's Synthetics canary.
import { type OperationId, route } from '../../shared/api/routes.ts';
import { GENERIC_RULES } from '../../shared/release-checks/generic.ts';

/** A rule a client relies on, as the report names it when broken. */
export const RULES = {
  requestId: 'every response carries x-amzn-RequestId',
  json: 'every response is JSON (Content-Type: application/json)',
  errorBody: 'every error has the Error body: code, message, status = HTTP status, requestId = x-amzn-RequestId',
  missingKey: 'a request without a key is 401 UNAUTHORIZED with WWW-Authenticate: Bearer',
  malformedKey: 'a malformed Authorization header is 401 UNAUTHORIZED with WWW-Authenticate: Bearer',
  unknownKey: 'an unknown key is 401 UNAUTHORIZED with WWW-Authenticate: Bearer',
  unknownPath: 'an unknown path is 404 NOT_FOUND, with a key',
  unknownMethod: 'an unknown method on /pets is 404 NOT_FOUND, with a key',
  listing: 'listPets answers 200 with an array of Animals (exactly id, name, categoryId, status)',
  badQuery: 'a malformed query (an unknown status, a forged cursor) is 400 BAD_REQUEST',
  statusFilter: 'listPets?status=… returns only animals in that status',
  paging: 'listPets pages with Link rel="next" while more animals match, and visits each once',
  getPet: 'getPet answers 200 with the Animal',
  create: 'a create is 201 with the Animal (status available when omitted) and Location …/pets/{id}',
  replay: 'the same Idempotency-Key and body replays the first 201 with Idempotent-Replayed: true',
  idempotencyMismatch: 'the same Idempotency-Key with another body is 422 UNPROCESSABLE_ENTITY',
  // Every operation's, from its route entry and samples (shared/release-checks/generic.ts).
  ...GENERIC_RULES,
} as const;
/**
 * A rule of RULES, or an operation's id: the rule of its own checks (tools/smoke/operations.ts)
 * where RULES has no words of its own for it, as its route entry's summary says.
 */
export type Rule = keyof typeof RULES | OperationId;

/** What a rule says, as the report words it. */
export const ruleText = (rule: Rule): string =>
  rule in RULES
    ? RULES[rule as keyof typeof RULES]
    : `${rule} (${route(rule as OperationId).summary}) answers as docs/api.md says`;

/** One response that broke one rule. */
export interface Violation {
  readonly rule: Rule;
  /** What was sent, e.g. `GET /pets?limit=0`. */
  readonly request: string;
  /** x-amzn-RequestId of the response; undefined when it had none (or no response came). */
  readonly requestId: string | undefined;
  readonly problem: string;
}

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  /** The parsed JSON body; undefined when the body was not JSON. */
  readonly body: unknown;
  readonly url: string;
  readonly request: string;
  readonly requestId: string | undefined;
}

export interface ProbeOptions {
  /** The base address, ending in /v1. */
  readonly baseUrl: string;
  readonly key: string;
  /** Per request; a stage that does not answer in time breaks the rule under check. */
  readonly timeoutMs?: number;
}

export interface SendOptions {
  readonly method?: string;
  /** The Authorization header; null: none. Default: Bearer and the suite's key. */
  readonly authorization?: string | null;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/** Thrown to end a check at its first broken rule: the rest of it would only repeat the news. */
export class Broken extends Error {
  readonly violation: Violation;
  constructor(violation: Violation) {
    super(violation.problem);
    this.violation = violation;
  }
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export class Probe {
  readonly #base: string;
  readonly #key: string;
  readonly #timeoutMs: number;
  /** Every violation so far, across checks, in the order they were found. */
  readonly violations: Violation[] = [];

  constructor({ baseUrl, key, timeoutMs = 10_000 }: ProbeOptions) {
    this.#base = baseUrl.replace(/\/+$/, '');
    this.#key = key;
    this.#timeoutMs = timeoutMs;
  }

  get key(): string {
    return this.#key;
  }

  url(path: string): string {
    return /^https?:/.test(path) ? path : `${this.#base}${path}`;
  }

  /** Sends one request and checks what every response must carry (request id, JSON, error body). */
  async send(path: string, options: SendOptions = {}): Promise<Reply> {
    const method = options.method ?? 'GET';
    const url = this.url(path);
    const request = `${method} ${url.startsWith(this.#base) ? url.slice(this.#base.length) : url}`;
    const headers: Record<string, string> = { ...options.headers };
    const authorization = options.authorization === undefined ? `Bearer ${this.#key}` : options.authorization;
    if (authorization !== null) headers.authorization = authorization;
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: options.body ?? null,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (error) {
      const problem = `no response: ${(error as Error).message}`;
      throw new Broken({ rule: 'requestId', request, requestId: undefined, problem });
    }
    const text = await response.text();
    const requestId = response.headers.get('x-amzn-requestid') ?? undefined;
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const reply: Reply = { status: response.status, headers: response.headers, body, url, request, requestId };
    this.expect(reply, 'requestId', requestId !== undefined && requestId !== '', 'no x-amzn-RequestId header');
    const type = response.headers.get('content-type') ?? '';
    this.expect(
      reply,
      'json',
      /^application\/json\s*(;|$)/i.test(type) && body !== undefined,
      `Content-Type "${type}", body ${text.slice(0, 80) || '(empty)'}`,
    );
    if (reply.status >= 400) this.#errorBody(reply);
    return reply;
  }

  /** Breaks `rule` with this reply unless `holds`. */
  expect(reply: Reply, rule: Rule, holds: boolean, problem: string): void {
    if (holds) return;
    const violation = { rule, request: reply.request, requestId: reply.requestId, problem };
    this.violations.push(violation);
    throw new Broken(violation);
  }

  /** The reply is the error the contract names: its status, its code, and a correct Error body. */
  expectError(reply: Reply, rule: Rule, status: number, code: string): void {
    const got = isObject(reply.body) ? reply.body.code : undefined;
    this.expect(
      reply,
      rule,
      reply.status === status && got === code,
      `expected ${status} ${code}, got ${reply.status} ${String(got)}`,
    );
  }

  #errorBody(reply: Reply): void {
    const body = reply.body;
    const problems: string[] = [];
    if (!isObject(body)) problems.push('not a JSON object');
    else {
      if (typeof body.code !== 'string' || !/^[A-Z_]+$/.test(body.code)) problems.push('code missing');
      if (typeof body.message !== 'string' || body.message === '') problems.push('message missing');
      if (body.status !== reply.status) problems.push(`status ${String(body.status)} ≠ ${reply.status}`);
      if (body.requestId !== reply.requestId)
        problems.push(`requestId ${String(body.requestId)} ≠ header ${String(reply.requestId)}`);
    }
    this.expect(reply, 'errorBody', problems.length === 0, `${reply.status} error body: ${problems.join('; ')}`);
  }
}
