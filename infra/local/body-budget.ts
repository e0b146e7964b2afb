// What the request bodies being read may hold at once, and each key's share of it. A body
// takes its share before its first byte arrives (request-body.ts), so without a share per key
// one key's uploads that declare a body and never send it took the whole budget, and every
// other key's POST waited for them (an attack did: ~2,050 stalled uploads, 300 s each). Now a
// key over its share waits behind its own requests, and the others are served. Shares alone did
// not do: eight keys at their share held the whole budget, and a ninth key's POSTs waited up to
// 8.7 s for one of their bodies to time out. So each key also has a reserve that it may always
// hold, whatever the others hold: what the bodies being read hold is at most the budget plus a
// reserve per key with a body in flight (keys are credentials the stage issued, not connections).
import { MAX_BODY_BYTES } from '../../shared/api/routes.ts';

/** What the bodies being read may hold at once, together: a few thousand of the largest. */
export const BODIES_IN_FLIGHT_BYTES = 32 * 1024 * 1024;
/**
 * One key's share of it: an eighth, 255 of the largest bodies (16 KiB + 1) at once. That is far
 * more than its functions run at once (8 each, LOCAL_FUNCTION_CONCURRENCY), so a key that sends
 * its bodies is slowed by its functions, never by its share; and it takes eight keys, not one,
 * to hold the whole budget, each only as long as a body may take (request-body.ts).
 */
export const KEY_SHARE_BYTES = BODIES_IN_FLIGHT_BYTES / 8;
/**
 * What a key may hold whatever the budget holds: as many of the largest bodies as its POSTs can
 * run at once (LOCAL_FUNCTION_CONCURRENCY's 8), so that a key that sends its bodies is answered at
 * its functions' pace however many other keys stall theirs.
 */
export const KEY_RESERVE_BYTES = 8 * (MAX_BODY_BYTES + 1);

export interface BodyBudgetLimits {
  totalBytes: number;
  keyShareBytes: number;
  /** What a key may hold outside the total's limit; none unless set. */
  keyReserveBytes?: number;
}

export interface BodyHold {
  /**
   * Undefined: the bytes were held at once (the usual request takes them without a turn of the
   * event loop). Else resolves to true when they are held, or to false when `release` came first.
   */
  readonly turn: Promise<boolean> | undefined;
  /** Gives the bytes back; or, while still waiting, leaves the line without taking anyone's turn. */
  release(): void;
}

export interface BodyBudget {
  /**
   * Holds `bytes` of `key`'s share and of the total: at once when they fit and nobody waits before
   * (or they fit the key's reserve and none of its own requests waits), else in turn.
   */
  hold(key: string, bytes: number): BodyHold;
}

interface Waiter {
  bytes: number;
  /** Hands the waiter its bytes (true) or tells it it left the line (false). */
  settle: (held: boolean) => void;
}

interface KeyState {
  held: number;
  /** Its requests waiting, first come first served. */
  line: Waiter[];
}

export const createBodyBudget = ({ totalBytes, keyShareBytes, keyReserveBytes = 0 }: BodyBudgetLimits): BodyBudget => {
  let held = 0;
  const keys = new Map<string, KeyState>();
  /** The keys with a line, in the order their next turn comes (each goes to the back once served). */
  const turns = new Set<KeyState>();

  // "Nothing held" lets one body through whatever its size: a limit never stops everything.
  const fitsTotal = (bytes: number) => held === 0 || held + bytes <= totalBytes;
  const fitsShare = (key: KeyState, bytes: number) => key.held === 0 || key.held + bytes <= keyShareBytes;
  /** Within the key's reserve: held whatever the others hold. */
  const fitsReserve = (key: KeyState, bytes: number) => key.held + bytes <= keyReserveBytes;
  /** A key's next request would fit its share, so what it waits for is the total: a newcomer must not take it first. */
  const waitsForTotal = () => [...turns].some((key) => fitsShare(key, key.line[0]!.bytes));

  const take = (key: KeyState, bytes: number) => {
    held += bytes;
    key.held += bytes;
  };

  const forgetIfIdle = (name: string, key: KeyState) => {
    if (key.line.length === 0) turns.delete(key);
    if (key.held === 0 && key.line.length === 0) keys.delete(name);
  };

  /**
   * Hands what is free to the waiting, one request per key in turn, so that a key with a long
   * line takes no more of it than a key with one request waiting. A key at its share is passed
   * over (it waits behind its own requests); a key waiting for the total keeps its place, and
   * those after it wait too (else small bodies could pass a large one for ever), except for what
   * fits their reserve. A key served goes to the back of `turns`, and a Set's iteration reaches
   * what was added during it: the loop goes round until no key's next request fits.
   */
  const serve = () => {
    /** A key before waits for the total: those after it wait too, but for their reserve. */
    let totalAwaited = false;
    for (const key of turns) {
      const next = key.line[0]!;
      if (!fitsReserve(key, next.bytes)) {
        if (!fitsShare(key, next.bytes)) continue;
        if (totalAwaited || !fitsTotal(next.bytes)) {
          totalAwaited = true;
          continue;
        }
      }
      key.line.shift();
      take(key, next.bytes);
      turns.delete(key);
      if (key.line.length > 0) turns.add(key);
      next.settle(true);
    }
  };

  return {
    hold(name, bytes) {
      let key = keys.get(name);
      if (!key) {
        key = { held: 0, line: [] };
        keys.set(name, key);
      }
      const state = key;
      let released = false;
      let waiter: Waiter | undefined;
      const release = () => {
        if (released) return;
        released = true;
        if (waiter) {
          // Still in line: it leaves it, and the turn it would have had goes to the next.
          state.line.splice(state.line.indexOf(waiter), 1);
          waiter.settle(false);
        } else {
          held -= bytes;
          state.held -= bytes;
        }
        forgetIfIdle(name, state);
        serve();
      };
      const fits = fitsReserve(state, bytes) || (fitsShare(state, bytes) && fitsTotal(bytes) && !waitsForTotal());
      if (state.line.length === 0 && fits) {
        take(state, bytes);
        return { turn: undefined, release };
      }
      const turn = new Promise<boolean>((resolve) => {
        waiter = {
          bytes,
          settle: (wasHeld) => {
            waiter = undefined; // from now on, `release` gives back what it holds (if it holds anything)
            if (!wasHeld) released = true;
            resolve(wasHeld);
          },
        };
      });
      state.line.push(waiter!);
      turns.add(state);
      return { turn, release };
    },
  };
};
