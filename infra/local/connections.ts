// The server's connections, one pipeline each. Node hands a listener every request a
// client pipelines at once (it only queues the answers), so one client that pipelined a
// thousand requests ran a thousand at once and took the server. Here:
// - a connection's next request starts when the previous answer was handed to the
//   connection, and a connection that has `maxQueued` requests waiting is not read from
//   until they shrink (a client that never reads its answers soon stops being read at all;
//   Node also stops reading a connection whose answers pile up);
// - an answer that does not come from a request (Node's parser refused what followed, a
//   CONNECT) waits for the answers of the requests before it: answers leave in the order
//   the requests came, and that last one closes the connection;
// - closing stops accepting, then answers every request already received, the last of each
//   connection with `Connection: close`, and only then closes the connections.
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { timestamped } from './timestamped.ts';

interface Connection {
  busy: boolean;
  /** Waiting their turn: requests (`req`), and answers that come from no request. */
  waiting: Array<{ req?: IncomingMessage; run: () => void }>;
  paused: boolean;
  /** An answer closed the connection: what the client sent after it is not run. */
  closed: boolean;
  /** The request being answered, and the last one Node handed over. */
  current?: IncomingMessage | undefined;
  latest?: IncomingMessage | undefined;
  /** When an answer last left on it (or it opened): a stop cuts only connections whose answers stopped moving. */
  movedAt: number;
}

/**
 * How long, once closing began, the server still accepts connections and reads idle ones: a
 * connection or request the client had sent before then is in the kernel's queues, and is
 * read (and answered, with `Connection: close`) within this.
 */
const IDLE_GRACE_MS = 200;
/** How long at most the server still accepts connections once closing began. */
const MAX_LISTEN_AFTER_CLOSE_MS = 5_000;
/**
 * Once closing, a connection that holds requests but has had no answer leave for this long is
 * cut: its client does not read its answers (well past a function's timeout, so no request of
 * ours takes that long). One whose answers keep leaving is never cut, however long its backlog
 * takes: a stop answers every request it had received.
 */
const STALL_MS = 30_000;

export interface Pipelines {
  /**
   * Runs `answer` (which writes a response and closes `socket`) once every earlier request of
   * `socket` is answered; with the request it answers in place of, when Node refused that one's body.
   */
  afterAnswers(socket: Duplex, answer: (broken?: IncomingMessage) => void): void;
  /** Stops accepting, answers every request received, then closes every connection. */
  close(): Promise<void>;
}

export const servePipelined = (
  server: Server,
  listener: RequestListener,
  maxQueued: number,
  { stallMs = STALL_MS } = {},
): Pipelines => {
  const connections = new Map<Duplex, Connection>();
  let closing = false;

  const connectionOf = (socket: Duplex): Connection => {
    let connection = connections.get(socket);
    if (!connection) {
      connection = { busy: false, waiting: [], paused: false, closed: false, movedAt: performance.now() };
      connections.set(socket, connection);
    }
    return connection;
  };
  let lastAcceptedAt = 0;
  server.on('connection', (socket: Socket) => {
    lastAcceptedAt = Date.now();
    const connection = connectionOf(socket);
    socket.once('close', () => connections.delete(socket));
    if (closing) closeWhenIdle(socket, connection);
  });

  /**
   * Runs `then` after the grace, and after the poll phase that follows it (setImmediate): a
   * timer fires before the loop's I/O, so under load the connections and requests that came
   * meanwhile would not have been taken yet.
   */
  const afterGrace = (then: () => void) => setTimeout(() => setImmediate(then).unref(), IDLE_GRACE_MS).unref();

  /** Once closing: a connection with nothing to answer is closed after a last look for requests. */
  const closeWhenIdle = (socket: Duplex, connection: Connection) =>
    afterGrace(() => {
      if (!connection.busy && !socket.destroyed) (socket as Socket).destroySoon();
    });

  const cutConnectionsStalledFor = (ms: number) => {
    const stalled = [...connections].filter(([, c]) => c.busy && performance.now() - c.movedAt > ms);
    if (stalled.length === 0) return;
    console.warn(
      timestamped(
        `stopping: cut ${stalled.length} connection(s) whose client took no answer for ${ms / 1000} s; ` +
          `${stalled.reduce((n, [, c]) => n + c.waiting.length, 0)} request(s) waiting on them are not answered`,
      ),
    );
    for (const [socket] of stalled) socket.destroy();
  };

  const startNext = (socket: Duplex, connection: Connection) => {
    // The client left, or the last answer closed the connection: nobody would get the answers
    // of the requests still waiting, so none runs (a create whose answer is lost is a duplicate when retried).
    if (socket.destroyed || connection.closed) connection.waiting.length = 0;
    const next = connection.waiting.shift();
    connection.busy = next !== undefined;
    connection.current = next?.req;
    if (connection.paused && connection.waiting.length < maxQueued) {
      connection.paused = false;
      socket.resume();
    }
    next?.run();
    if (closing && !connection.busy) closeWhenIdle(socket, connection);
  };

  /** While closing, the answer after which nothing waits is the connection's last. */
  const lastAnswerCloses = (res: ServerResponse, connection: Connection) => {
    const writeHead = res.writeHead;
    res.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
      if (closing && connection.waiting.length === 0) this.shouldKeepAlive = false; // Connection: close, then close
      return writeHead.apply(this, args);
    } as ServerResponse['writeHead'];
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    const connection = connectionOf(socket);
    if (connection.closed) return;
    connection.latest = req;
    const start = () => {
      let done = false;
      const finished = () => {
        if (done) return;
        done = true;
        connection.movedAt = performance.now();
        if (!res.shouldKeepAlive) connection.closed = true;
        startNext(socket, connection);
      };
      // 'finish': the answer is with the connection; 'close': the client left before it.
      res.once('finish', finished);
      res.once('close', finished);
      lastAnswerCloses(res, connection);
      listener(req, res);
    };
    if (!connection.busy) {
      connection.busy = true;
      connection.current = req;
      start();
      return;
    }
    connection.waiting.push({ req, run: start });
    if (connection.waiting.length >= maxQueued && !connection.paused) {
      connection.paused = true;
      socket.pause();
    }
  };
  server.on('request', onRequest);
  // A request that expects 100-continue: the listener sends it only when it reads the body, so
  // a request refused from its headers alone is answered before the client sends its body; one
  // with another expectation gets the listener's Error body instead of Node's bare 417.
  server.on('checkContinue', onRequest);
  server.on('checkExpectation', onRequest);

  return {
    afterAnswers(socket, answer) {
      const connection = connectionOf(socket);
      // Node refused the body of the last request it handed over (a malformed chunk): that
      // request gets this answer in its place, and its handler, which never gets the whole
      // body, none.
      const broken = connection.latest?.complete === false ? connection.latest : undefined;
      const slot = broken ? connection.waiting.findIndex((waiting) => waiting.req === broken) : -1;
      if (slot >= 0) connection.waiting[slot] = { run: () => answer(broken) };
      else if (!connection.busy || (broken && connection.current === broken)) {
        connection.busy = true;
        connection.current = undefined;
        answer(broken);
      } else connection.waiting.push({ run: () => answer() });
    },

    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        const cutStalled = setInterval(() => cutConnectionsStalledFor(stallMs), Math.min(stallMs / 4, 1000)).unref();
        // Connections the kernel accepted wait in the listen backlog until Node takes them, one
        // or a few per turn of a busy event loop: stopping to listen would reset them with the
        // requests they carry. So the server listens on until no connection came for a grace
        // (at most MAX_LISTEN_AFTER_CLOSE_MS, against a client that never stops connecting).
        const until = Date.now() + MAX_LISTEN_AFTER_CLOSE_MS;
        const stopListening = () => {
          if (Date.now() - lastAcceptedAt < IDLE_GRACE_MS && Date.now() < until) return afterGrace(stopListening);
          // net.Server's close, not http.Server's: that one also drops every connection between
          // two requests at once, and with it a request the client had sent but Node had not read.
          NetServer.prototype.close.call(server, () => {
            clearInterval(cutStalled);
            resolve();
          });
          for (const [socket, connection] of connections) closeWhenIdle(socket, connection);
        };
        afterGrace(stopListening);
      }),
  };
};
