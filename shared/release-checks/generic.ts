// The checks every operation gets from its route entry and its samples (samples.ts), whatever it
// is: an invalid request is 400 BAD_REQUEST naming its field; a request for something absent is
// 404 NOT_FOUND and creates nothing (the same request again is 404 again); a body that is not JSON
// is 415; a read key on a write operation is 403 FORBIDDEN; and every answer of a deprecated
// operation carries its Deprecation, Sunset and successor Link. Written once, run by the release
// checks (checks.ts), the smoke suite (tools/smoke/checks.ts, and through it the canary and
// test/e2e/smoke.test.ts): none of them states these per operation. Each creates nothing.
import { API_VERSION_PATH, answers, type OperationId, type Route } from '../api/routes.ts';
import { type SampleRequest, sampleRequests } from './samples.ts';

/** The rules the generic checks keep, as the smoke suite's report names them (tools/smoke/probe.ts). */
export const GENERIC_RULES = {
  invalidInput: 'an invalid request is 400 BAD_REQUEST whose details name the field',
  notFound: 'a request for something absent is 404 NOT_FOUND, and creates nothing',
  unsupportedMediaType: 'a body that is not application/json is 415 UNSUPPORTED_MEDIA_TYPE',
  readKeyForbidden: 'a read key on a write operation is 403 FORBIDDEN',
  deprecation: 'a deprecated operation\'s answers carry Deprecation, Sunset and Link rel="successor-version"',
} as const;
type GenericRule = Exclude<keyof typeof GENERIC_RULES, 'deprecation'>;

export interface GenericCheck {
  readonly operationId: OperationId;
  /** What it checks, naming the operation. */
  readonly name: string;
  readonly rule: GenericRule;
  readonly sample: SampleRequest;
  /** The media type the sample's JSON body is sent as, instead of application/json. */
  readonly contentType?: string;
  /** Sent with a key of scope read: only where one is at hand (over HTTP; not the release checks). */
  readonly readKey?: true;
  readonly status: number;
  readonly code: string;
  /** The field the 400's details must name. */
  readonly field?: string;
  /** Sent twice, each answered `status`: had the first created the thing, the second would find it. */
  readonly twice?: true;
}

/** An operation's generic checks, from its route entry (what it takes, its scope) and its samples. */
export const genericChecks = (r: Route): GenericCheck[] => {
  const { operationId } = r;
  const { valid, invalid, notFound } = sampleRequests[operationId];
  const checks: GenericCheck[] = [];
  if (answers(r).includes(400))
    checks.push({
      ...{ operationId, rule: 'invalidInput', sample: invalid, status: 400, code: 'BAD_REQUEST' },
      ...{ name: `${operationId}: an invalid request is 400 naming ${invalid.field}`, field: invalid.field },
    });
  if (notFound)
    checks.push({
      ...{ operationId, rule: 'notFound', sample: notFound, status: 404, code: 'NOT_FOUND', twice: true },
      name: `${operationId}: a request for something absent is 404, and creates nothing`,
    });
  if (r.body !== undefined)
    checks.push({
      ...{ operationId, rule: 'unsupportedMediaType', sample: valid, contentType: 'text/plain' },
      ...{ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', name: `${operationId}: a body that is not JSON is 415` },
    });
  if (r.scope === 'write')
    checks.push({
      ...{ operationId, rule: 'readKeyForbidden', sample: valid, readKey: true, status: 403, code: 'FORBIDDEN' },
      name: `${operationId}: a read key is 403`,
    });
  return checks;
};

/** An answer, as every runner can see it. */
export interface GenericAnswer {
  readonly status: number;
  header(name: string): string | undefined;
  /** The parsed JSON body; undefined when it was not JSON. */
  readonly body: unknown;
}

const field = (body: unknown, name: string): unknown =>
  typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;

/** What is wrong with `answer` to `check`'s request; the Error body's shape is each runner's own check. */
export const answerProblems = (check: GenericCheck, answer: GenericAnswer): string[] => {
  const code = field(answer.body, 'code');
  if (answer.status !== check.status || code !== check.code)
    return [`expected ${check.status} ${check.code}, got ${answer.status} ${String(code)}`];
  const details = field(answer.body, 'details');
  const named = Array.isArray(details) ? details.map((detail) => field(detail, 'field')) : [];
  return check.field === undefined || named.includes(check.field)
    ? []
    : [`its details name ${named.join(', ') || 'no field'}, not ${check.field}`];
};

/**
 * What a function's answer of a deprecated operation lacks of its route entry's `deprecation`
 * (RFC 9745 Deprecation, RFC 8594 Sunset, and the successor's Link); nothing for another operation.
 */
export const deprecationProblems = (r: Route, answer: GenericAnswer): string[] => {
  if (!r.deprecation) return [];
  const { since, sunset, successor } = r.deprecation;
  const problems: string[] = [];
  const deprecation = answer.header('Deprecation');
  if (deprecation !== `@${Math.floor(since.getTime() / 1000)}`) problems.push(`Deprecation: ${deprecation}`);
  const sunsetHeader = answer.header('Sunset');
  if (sunsetHeader !== sunset.toUTCString()) problems.push(`Sunset: ${sunsetHeader}`);
  const link = answer.header('Link') ?? '';
  const target = /<([^>]*)>\s*;\s*rel="successor-version"/.exec(link)?.[1];
  if (!target?.endsWith(`${API_VERSION_PATH}${successor}`)) problems.push(`Link: ${link || '(none)'}`);
  return problems;
};
