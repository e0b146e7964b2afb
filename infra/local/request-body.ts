// The request bodies the gateway holds. A body is read only once its request has passed
// every check the headers allow (route, key, payload limit), never past the largest
// body a route accepts (MAX_BODY_BYTES), and all bodies being read share one budget.
// What is left of a body nobody reads is not read either: the answer then closes the
// connection (RFC 9112 §9.6; see closesConnection).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { MAX_BODY_BYTES } from '../../shared/api/routes.ts';

/** API Gateway's own payload limit: a request that declares more is refused before anything else. */
const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;
/** How long a connection closed with a body unread stays open after its answer (RFC 9112 §9.6: lingering close): at 2 s, 2 of 1,000 concurrent 10 MiB uploads lost their answer to the reset. */
const LINGER_MS = 5_000;
/** What the bodies being read may hold at once, together: a few thousand of the largest. */
const BODIES_IN_FLIGHT_BYTES = 32 * 1024 * 1024;
/** Node's own reading of `Expect` (its `continueExpression`): what it does not take for 100-continue it would answer with a bare 417. */
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

/** The request ended without its whole body: the client left, or its framing was malformed. */
export class RequestAbandoned extends Error {}

/** Whether the request carries an expectation other than 100-continue. */
export const hasUnknownExpectation = (req: IncomingMessage): boolean =>
  req.headers.expect !== undefined && !CONTINUE.test(req.headers.expect);

/** The request's declared body size; undefined when chunked or absent. */
const declaredLength = (req: IncomingMessage): number | undefined => {
  const value = req.headers['content-length'];
  return value === undefined ? undefined : Number(value);
};

export const declaresMoreThanPayloadLimit = (req: IncomingMessage): boolean =>
  (declaredLength(req) ?? 0) > MAX_PAYLOAD_BYTES;

/**
 * Whether the answer to `req` must close the connection: part of its body is still unread
 * and may be large (undeclared, or over what a route accepts). A small declared rest is
 * read and dropped by Node after the answer, and the connection kept.
 */
export const closesConnection = (req: IncomingMessage): boolean =>
  !req.complete && !((declaredLength(req) ?? Number.POSITIVE_INFINITY) <= MAX_BODY_BYTES);

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

let inFlight = 0;
const waiting: Array<() => void> = [];

const fits = (bytes: number) => inFlight + bytes <= BODIES_IN_FLIGHT_BYTES || inFlight === 0;

/** Takes `bytes` of the budget of all bodies being read (call when they fit); returns its release. */
const reserve = (bytes: number): (() => void) => {
  inFlight += bytes;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    inFlight -= bytes;
    waiting.shift()?.();
  };
};

/**
 * The body, or its first MAX_BODY_BYTES + 1 bytes when it is larger: enough for the function
 * to refuse it (413) as it refuses the whole, which it measures before it looks inside. Sends
 * `100 Continue` first when the client waits for it. The reservation is held until the answer.
 */
export const readBody = async (req: IncomingMessage, res: ServerResponse): Promise<Buffer> => {
  const length = declaredLength(req);
  if (req.headers['transfer-encoding'] === undefined && !length) return Buffer.alloc(0);
  const bytes = Math.min(length ?? Number.POSITIVE_INFINITY, MAX_BODY_BYTES + 1);
  // Waits only when the budget is spent: the usual request takes its share without a turn of the loop.
  while (!fits(bytes)) await new Promise<void>((resolve) => waiting.push(resolve));
  if (res.closed) throw new RequestAbandoned(); // the client left while it waited: its 'close' is past
  res.once('close', reserve(bytes));
  if (req.headers.expect !== undefined && !req.complete) res.writeContinue();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
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
    const onEnd = () => resolve(Buffer.concat(chunks, size));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', () => reject(new RequestAbandoned()));
    req.on('close', () => {
      if (!req.complete && size <= MAX_BODY_BYTES) reject(new RequestAbandoned());
    });
  });
};
