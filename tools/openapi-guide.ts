// The reference's opening text (the document's info.description, Markdown): what holds for
// every operation, which the operations' own entries would otherwise each repeat.
import { ERRORS, RETRY_AFTER_SECONDS } from '../shared/api/errors.ts';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_WINDOW_SECONDS,
  IDEMPOTENT_REPLAYED_HEADER,
} from '../shared/api/idempotency.ts';
import { MAX_BODY_BYTES, route } from '../shared/api/routes.ts';
import type { ErrorCode } from '../shared/api/schemas.ts';

/** When each code of the Error body is answered (typed: a new code is not documented until it has a row). */
const errorCodes: Record<ErrorCode, { when: string }> = {
  BAD_REQUEST: {
    when: 'A query parameter, path parameter, cursor or body is malformed or out of range; `details` names each field.',
  },
  UNAUTHORIZED: {
    when: 'The key is missing, malformed, unknown, revoked or expired. Carries `WWW-Authenticate: Bearer`.',
  },
  FORBIDDEN: {
    when: 'A valid key whose scope does not allow the operation: a `read` key on `POST /pets`.',
  },
  NOT_FOUND: {
    when: 'No animal has that id; also any path or method that is not one of the operations (answered before the key is checked).',
  },
  PAYLOAD_TOO_LARGE: { when: `The request body is larger than ${MAX_BODY_BYTES} bytes.` },
  UNSUPPORTED_MEDIA_TYPE: {
    when: '`POST /pets` whose `Content-Type` is not `application/json`, or whose charset is not `utf-8`.',
  },
  TOO_MANY_REQUESTS: {
    when: 'The key’s own rate, burst or daily quota, or the stage’s throttling limit, was exceeded. Carries `Retry-After`.',
  },
  CONFLICT: {
    when: 'A `POST /pets` whose `Idempotency-Key` is still being processed by an earlier request. Carries `Retry-After`.',
  },
  UNPROCESSABLE_ENTITY: { when: 'An `Idempotency-Key` reused with a different body.' },
  INTERNAL_ERROR: { when: 'A fault of ours. The message says only that; quote the `requestId`.' },
  BAD_GATEWAY: { when: 'The function failed before answering (crashed or answered invalidly).' },
  SERVICE_UNAVAILABLE: { when: 'The database is throttling or unreachable. Carries `Retry-After`.' },
  GATEWAY_TIMEOUT: { when: 'The function did not answer in time.' },
};

// Statuses from the error model (shared/api/errors.ts), the one place they are stated.
const errorTable = (Object.entries(errorCodes) as [ErrorCode, { when: string }][])
  .map(([code, { when }]) => ({ status: ERRORS[code].status, code, when }))
  .sort((a, b) => a.status - b.status)
  .map(({ status, code, when }) => `| ${status} | \`${code}\` | ${when} |`)
  .join('\n');

const getPet = route('getPet');
const sunset = getPet.deprecation?.sunset.toUTCString();

export const guide = `A catalogue of animals: list them, add one, and fetch one by id (deprecated).

## Authentication
Every operation needs an API key from the key tool (\`pet_…\`), sent as \`Authorization: Bearer <key>\`.
Without a valid one the answer is 401 \`UNAUTHORIZED\` with \`WWW-Authenticate: Bearer\`. A key may expire
(from then on it is a 401 too) and has a scope: \`write\` keys may call every operation, \`read\` keys the \`GET\`
operations only (their \`POST /pets\` is 403 \`FORBIDDEN\`).

## Responses
Bodies are JSON (\`Content-Type: application/json\`). Every response carries \`x-amzn-RequestId\`, the request's id.

## Paging
\`GET /pets\` answers a page of at most \`limit\` animals. When more match, the
response has \`Link: <…>; rel="next"\`: follow it (resolved against the request URL) for the next page, until a
page has no \`next\` link. The \`cursor\` in it is opaque: a cursor that the service did not issue, or that is sent
with another \`status\`, is 400.

## Errors
Every error has the Error body: \`code\`, \`message\`, \`status\` (the HTTP status) and \`requestId\` (equal to the
\`x-amzn-RequestId\` header), plus \`details\` on validation errors. Quote the \`requestId\` when reporting a problem.

| HTTP | code | when |
|---|---|---|
${errorTable}

## Limits and retries
Each key has its own request rate and burst, and may have a daily quota; the stage has an overall throttle. Over a
limit the answer is 429 \`TOO_MANY_REQUESTS\`, and 503 \`SERVICE_UNAVAILABLE\` when the database is briefly
unavailable; both carry \`Retry-After\` (seconds, ${RETRY_AFTER_SECONDS} today): wait that long, then retry.
Every answer of an operation carries \`RateLimit-Policy\` (draft-ietf-httpapi-ratelimit-headers), naming your key's
limits as quota policies, \`q\` requests per \`w\` seconds: e.g. \`"burst";q=100;w=1, "steady";q=50;w=1,
"daily";q=2000000;w=86400\`.

## Safe retries
\`POST /pets\` takes an optional \`${IDEMPOTENCY_KEY_HEADER}\` header (1–255 visible ASCII characters; a new one for each
animal you mean to add). For ${IDEMPOTENCY_WINDOW_SECONDS / 3600} hours after the first request with a key succeeded, a request with the same key and
the same body creates nothing and gets the first 201 again, with \`${IDEMPOTENT_REPLAYED_HEADER}: true\`. The same key
with another body is 422 \`UNPROCESSABLE_ENTITY\`; while the first request is still running, 409 \`CONFLICT\` with
\`Retry-After\`. Keys belong to your API key, and only a 201 is remembered: a request that failed may be retried with
the same key.

## Deprecation
\`GET /pets/{petId}\` (getPet) is deprecated and stops working on ${sunset}. Each of its responses carries
\`Deprecation\` (RFC 9745), \`Sunset\` (RFC 8594) and \`Link: <…${getPet.deprecation?.successor}>; rel="successor-version"\`:
list animals with the \`status\` filter instead.
`;
