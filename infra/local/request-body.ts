// The request bodies the gateway holds. A body is read only once its request has passed
// every check the headers allow (route, key, payload limit), never past the largest
// body a route accepts (MAX_BODY_BYTES), within one budget for all bodies being read of
// which each key has its share (body-budget.ts), and for no longer than BODY_READ_TIMEOUT_MS.
// What is left of a body nobody reads is not read either: the answer then closes the
// connection (RFC 9112 §9.6; see closesConnection).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { MAX_BODY_BYTES } from '../../shared/api/routes.ts';
import {
  BODIES_IN_FLIGHT_BYTES,
  type BodyBudgetLimits,
  createBodyBudget,
  KEY_RESERVE_BYTES,
  KEY_SHARE_BYTES,
} from './body-budget.ts';

/** API Gateway's own payload limit: a request that declares more is refused before anything else. */
const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;
/** How long a connection closed with a body unread stays open after its answer (RFC 9112 §9.6: lingering close): at 2 s, 2 of 1,000 concurrent 10 MiB uploads lost their answer to the reset. */
const LINGER_MS = 5_000;
/**
 * How long a body may take once its reading starts (100 Continue, if asked for, goes then). The
 * largest (16 KiB) takes well under a second on any working link; a client slower than 1.6 KB/s,
 * or one that never sends what it declared, held its share of the budget until Node's
 * requestTimeout (300 s) and, with enough of them, every other key's POST waited as long.
 */
const BODY_READ_TIMEOUT_MS = 10_000;
/**
 * Node's limit on the time a request's headers may take, made the body's: its own (headersTimeout,
 * 60 s, checked every connectionsCheckingInterval, 30 s) answered headers that stopped coming
 * after 60 to 90 s. Checked every second, they are refused 10 to 11 s after the request began.
 */
export const HEADERS_TIMEOUT = { headersTimeout: BODY_READ_TIMEOUT_MS, connectionsCheckingInterval: 1_000 } as const;
/** The contract's `details` message for the field `headers`, when they did not come in time. */
export const HEADERS_NOT_RECEIVED = `were not received within ${BODY_READ_TIMEOUT_MS / 1000} s`;
/** Node's own reading of `Expect` (its `continueExpression`): what it does not take for 100-continue it would answer with a bare 417. */
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

/** The request ended without its whole body: the client left, or its framing was malformed. */
export class RequestAbandoned extends Error {}

/** The body did not arrive within the time a body may take: its reading stopped, and the answer closes the connection. */
export class BodyNotReceived extends Error {
  /** The contract's `details` message for the field `body`. */
  readonly detail: string;
  constructor(timeoutMs: number) {
    const detail = `was not received within ${timeoutMs / 1000} s`;
    super(`request body ${detail}`);
    this.detail = detail;
  }
}

/** Requests whose body stopped coming in time: the rest is not waited for, whatever its declared size. */
const cutOff = new WeakSet<IncomingMessage>();

/** The connections whose request waits for its body (its turn in the budget, or its bytes), and the request's key. */
const awaiting = new WeakMap<Socket, string>();

/**
 * The key of the request on `socket` that waits for its body, if one does: a connection the
 * connection limit may cut when every connection has a request in flight (connection-limit.ts).
 */
export const awaitingBody = (socket: Socket): string | undefined => awaiting.get(socket);

/** Whether the request carries an expectation other than 100-continue. */
export const hasUnknownExpectation = (req: IncomingMessage): boolean =>
  req.headers.expect !== undefined && !CONTINUE.test(req.headers.expect);

/** The request's declared body size; undefined when chunked or absent. */
const declaredLength = (req: IncomingMessage): number | undefined => {
  const value = req.headers['content-length'];
  return value === undefined ? undefined : Number(value);
};

/** Whether a declared body size is over API Gateway's payload limit (a request Node refused has no IncomingMessage). */
export const overPayloadLimit = (length: number | undefined): boolean => (length ?? 0) > MAX_PAYLOAD_BYTES;

export const declaresMoreThanPayloadLimit = (req: IncomingMessage): boolean => overPayloadLimit(declaredLength(req));

/**
 * Whether the answer to `req` must close the connection: part of its body is still unread
 * and may be large (undeclared, or over what a route accepts), or did not come in time (the
 * client may never send it). A small declared rest is read and dropped by Node after the
 * answer, and the connection kept.
 */
export const closesConnection = (req: IncomingMessage): boolean =>
  !req.complete && (cutOff.has(req) || !((declaredLength(req) ?? Number.POSITIVE_INFINITY) <= MAX_BODY_BYTES));

/**
 * Closes `res`'s connection after the answer without losing it: closing a socket with unread
 * bytes resets it, and a reset makes the client's kernel drop the answer it had not read yet
 * (a client still sending its body saw EPIPE and no answer). So the answer goes with a FIN, and
 * the socket stays open, unread (paused: the client's sends stall in the kernel's buffers), until
 * the client closes too or LINGER_MS has passed.
 */
export const closeAfterAnswer = (res: ServerResponse): void => {
  res.shouldKeepAlive = false; // Connection: close; Node then calls destroySoon once the answer is written
  const socket = res.socket as Socket | null;
  if (!socket) return;
  // A body nobody read: Node would read the rest and drop it (IncomingMessage#_dump) before
  // closing, at the client's pace. Taken as read, only what fits the stream's buffer is.
  if (res.req.readableFlowing === null) res.req.read(0);
  socket.destroySoon = function (this: Socket) {
    this.end();
    this.pause();
    dropBuffered(res.req);
    setTimeout(() => this.destroy(), LINGER_MS).unref();
  };
};

/**
 * Drops what `req` holds of its body, read before its socket was paused: up to its stream's
 * buffer and the chunk past it, ~90 KB a request (1,000 lingering closes held 94 MB of them).
 * Flowing, with nobody listening, each chunk goes as it is (`read()` while paused would copy them
 * all into one); and reading must not resume the paused socket (IncomingMessage#_read does).
 */
const dropBuffered = (req: IncomingMessage): void => {
  req._read = () => {};
  req.resume();
};

export interface BodyReaderOptions extends BodyBudgetLimits {
  /** How long a body may take once its reading starts. */
  timeoutMs: number;
}

export type BodyReader = (req: IncomingMessage, res: ServerResponse, key: string) => Promise<Buffer>;

/**
 * Reads bodies within one budget, of which `key` (the caller's key) holds at most its share:
 * BODIES_IN_FLIGHT_BYTES, KEY_SHARE_BYTES, KEY_RESERVE_BYTES and BODY_READ_TIMEOUT_MS unless `options` say
 * otherwise (tests do, to be quick).
 */
export const createBodyReader = (options: Partial<BodyReaderOptions> = {}): BodyReader => {
  const budget = createBodyBudget({
    totalBytes: options.totalBytes ?? BODIES_IN_FLIGHT_BYTES,
    keyShareBytes: options.keyShareBytes ?? KEY_SHARE_BYTES,
    keyReserveBytes: options.keyReserveBytes ?? KEY_RESERVE_BYTES,
  });
  const timeoutMs = options.timeoutMs ?? BODY_READ_TIMEOUT_MS;
  return async (req, res, key) => {
    const length = declaredLength(req);
    if (req.headers['transfer-encoding'] === undefined && !length) return Buffer.alloc(0);
    // The client left already: its 'close' is past, and would never release a hold.
    if (res.closed) throw new RequestAbandoned();
    const hold = budget.hold(key, Math.min(length ?? Number.POSITIVE_INFINITY, MAX_BODY_BYTES + 1));
    // Released once the answer is written, or when the client leaves: a request that leaves
    // while it waits gives up its place, and its turn goes to the next.
    res.once('close', hold.release);
    const socket = req.socket as Socket;
    if (!req.complete) awaiting.set(socket, key);
    try {
      if (hold.turn && !(await hold.turn)) throw new RequestAbandoned();
      if (res.closed) throw new RequestAbandoned();
      if (req.headers.expect !== undefined && !req.complete) res.writeContinue();
      return await readHeld(req, timeoutMs);
    } finally {
      awaiting.delete(socket);
    }
  };
};

/**
 * The body, or its first MAX_BODY_BYTES + 1 bytes when it is larger: enough for the function
 * to refuse it (413) as it refuses the whole, which it measures before it looks inside.
 * Rejects with BodyNotReceived when it has not come within `timeoutMs`.
 */
const readHeld = (req: IncomingMessage, timeoutMs: number): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.pause();
      // The rest stays unread (closeAfterAnswer): the socket stops now, and what the request
      // buffered past the limit is dropped, not held while the function runs and the connection lingers.
      if (req.complete) return;
      req.socket.pause();
      dropBuffered(req);
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) return;
      stop();
      // Emptied: the listeners below keep this scope, and with it the chunks, as long as the request.
      resolve(Buffer.concat(chunks.splice(0), MAX_BODY_BYTES + 1));
    };
    const onEnd = () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks, size));
    };
    // A body already whole needs no timer: the usual request sets none.
    const timer = req.complete
      ? undefined
      : setTimeout(() => {
          cutOff.add(req);
          stop();
          chunks.length = 0;
          reject(new BodyNotReceived(timeoutMs));
        }, timeoutMs);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', () => {
      clearTimeout(timer);
      reject(new RequestAbandoned());
    });
    req.on('close', () => {
      clearTimeout(timer);
      if (!req.complete && size <= MAX_BODY_BYTES) reject(new RequestAbandoned());
    });
  });
