// Safe retries of POST /pets (draft-ietf-httpapi-idempotency-key-header), as the
// contract decides them: the header names, how long a create is remembered, and
// what a key may look like. The Lambda adapter (shared/lambda/idempotency.ts), the
// OpenAPI document and the tests read them from here.
import * as z from 'zod/mini';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Set to `true` on a response that repeats an earlier one. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
/** How long after a create succeeded its key replays it (deployed, DynamoDB TTL removes the record later). */
export const IDEMPOTENCY_WINDOW_SECONDS = 24 * 60 * 60;

/** A key once unquoted (a bare key matches it as sent). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7E]{1,255}$/;
const KEY_MESSAGE = 'must be 1 to 255 visible ASCII characters, given once';

/** The key as sent: 1–255 visible ASCII characters; the draft's quoted form (`"abc"`) means `abc`. */
export const IdempotencyKey = z
  .pipe(
    z.pipe(
      // Its one non-string input: the header sent twice (idempotencyKeyOf passes null then).
      z.string({ error: 'must be sent once' }),
      z.transform((value: string) =>
        value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value,
      ),
    ),
    z.string().check(z.regex(IDEMPOTENCY_KEY_PATTERN, KEY_MESSAGE)),
  )
  .register(z.globalRegistry, {
    description:
      `Makes a retry safe: a repeat with the same key and body within ${IDEMPOTENCY_WINDOW_SECONDS / 3600} hours ` +
      'creates nothing and gets the first response again. 1–255 visible ASCII characters; `"abc"` means the same ' +
      'as `abc`.',
  });
