// Paging cursors: opaque to clients, authenticated so that a forged or altered one
// is a 400, and bound to the status filter they were issued for.
import { createHmac, timingSafeEqual } from 'node:crypto';
import * as z from 'zod/mini';
import { BadRequestError } from '../api/errors.ts';
import { MAX_ID, PetStatus } from '../api/schemas.ts';

/**
 * The position after which the next page starts: the id of the last animal served. Built in a
 * pure-marked function so that a bundle without paging (the authorizer) drops it (schemas.ts).
 */
const Position = /* @__PURE__ */ (() =>
  z.strictObject({
    after: z.int().check(z.gte(1), z.lte(MAX_ID)),
    status: z.nullable(PetStatus),
  }))();
type Position = z.infer<typeof Position>;

const MAC_BYTES = 16;

export interface CursorCodec {
  encode(position: Position): string;
  /** The position, or a 400 when the cursor was not issued for this filter. */
  decode(cursor: string, status: PetStatus | undefined): Position;
}

export const createCursorCodec = (secret: string): CursorCodec => {
  if (secret.length < 32) throw new Error('the cursor secret must be at least 32 characters');
  const mac = (payload: string) => createHmac('sha256', secret).update(payload).digest().subarray(0, MAC_BYTES);
  const invalid = () => new BadRequestError('cursor is invalid', [{ field: 'cursor', message: 'is invalid' }]);

  return {
    encode(position) {
      const payload = Buffer.from(JSON.stringify(position)).toString('base64url');
      return `${payload}.${mac(payload).toString('base64url')}`;
    },
    decode(cursor, status) {
      const [payload, signature, extra] = cursor.split('.');
      if (!payload || !signature || extra !== undefined) throw invalid();
      // Compared as text: decoding would let several spellings of one MAC pass
      // (the last base64url character carries unused bits).
      const expected = Buffer.from(mac(payload).toString('base64url'));
      const given = Buffer.from(signature);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
      let json: unknown;
      try {
        json = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        throw invalid();
      }
      const position = Position.safeParse(json);
      if (!position.success) throw invalid();
      if (position.data.status !== (status ?? null)) {
        throw new BadRequestError('cursor was issued for a different status filter', [
          { field: 'cursor', message: 'does not match the status filter' },
        ]);
      }
      return position.data;
    },
  };
};

/**
 * The position a cursor claims to resume after (the last id served before it), its signature
 * unchecked, for the logs only: which page a request asked for, without writing the cursor.
 * Undefined when it is not a cursor at all.
 */
export const cursorResumesAfter = (cursor: string): number | undefined => {
  const dot = cursor.indexOf('.');
  if (dot <= 0) return undefined;
  try {
    const { after } = JSON.parse(Buffer.from(cursor.slice(0, dot), 'base64url').toString('utf8')) as {
      after?: unknown;
    };
    return typeof after === 'number' && Number.isSafeInteger(after) && after >= 1 && after <= MAX_ID
      ? after
      : undefined;
  } catch {
    return undefined;
  }
};
