// How many connections the local server's two listeners (the API and the embedded DynamoDB)
// keep open. Each is a file descriptor, and the process may open so many (Node raises its soft
// limit to the hard one at start). Past that, no client can connect, and whatever else opens a
// file fails with EMFILE: LevelDB's table files, the keys' daily counts, /proc for the idle
// memory check, which threw and took the server down. A connection that never sends a request
// holds its descriptor until Node's headers timeout (60 s, checked every 30): 20,000 of them,
// opened by two scripts in ~20 s, held every descriptor of this machine (limit 20,000), and the
// server exited (test/e2e/open-files.test.ts). So each listener keeps its connections under
// its share of the limit, and past it closes the connection idle the longest to make room:
// never one with a request in flight (an idle keep-alive connection may be closed at any time,
// RFC 9112 §9.5, and a client opens another). When every connection has a request in flight, one
// whose request still waits for its body goes, of the key with the most such: uploads that
// declared a body and never sent it are in flight for as long as a body may take (10 s), and keys
// that held as many as the limit refused every other client's connection, over and over.
import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { timestamped } from './timestamped.ts';

/** Descriptors left to the server itself (LevelDB's files, logs, the data files), at most half the limit. */
const RESERVED_FILES = 1024;
/** Where the limit cannot be read (no /proc: macOS, Windows): what Node's raised limit is at least there. */
const UNKNOWN_LIMIT = 10_240;
/** The embedded DynamoDB's share of what is left: its clients are the functions' pooled sockets. */
const DYNAMODB_SHARE = 1 / 8;

/** The soft limit on open files in `/proc/self/limits` (Linux); undefined when unknown or unlimited. */
export const openFilesLimit = (limits = readProcLimits()): number | undefined => {
  const soft = /^Max open files\s+(\d+)/m.exec(limits ?? '')?.[1];
  return soft === undefined ? undefined : Number(soft);
};

const readProcLimits = (): string | undefined => {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
};

/** Each listener's most connections at once, from the process's open-files limit. */
export const connectionBudget = (openFiles = openFilesLimit() ?? UNKNOWN_LIMIT) => {
  const available = Math.max(2, openFiles - Math.min(RESERVED_FILES, Math.floor(openFiles / 2)));
  const dynamodb = Math.max(1, Math.floor(available * DYNAMODB_SHARE));
  return { api: available - dynamodb, dynamodb };
};

export interface ConnectionLimit {
  max: number;
  /** Names the listener in the warning. */
  name: string;
  /** The events that start a request: the API server also takes `checkContinue` and `checkExpectation` itself. */
  requestEvents?: string[];
  /** The key of the request on `socket` that waits for its body (request-body.ts), if one does: it may be cut. */
  awaitingBody?: (socket: Socket) => string | undefined;
}

/** The warning's pace: one line a second at most, with the counts since the last. */
const REPORT_EVERY_MS = 1000;

/** Of the connections whose request waits for its body, the oldest of the key with the most of them. */
const uploadToCut = (sockets: Iterable<Socket>, awaitingBody: (socket: Socket) => string | undefined) => {
  const byKey = new Map<string, Socket[]>();
  for (const socket of sockets) {
    const key = awaitingBody(socket);
    if (key === undefined) continue;
    const same = byKey.get(key);
    if (same) same.push(socket);
    else byKey.set(key, [socket]);
  }
  let most: Socket[] = [];
  for (const same of byKey.values()) if (same.length > most.length) most = same;
  return most[0];
};

/**
 * Keeps `server`'s connections at `max`: a connection past it closes the one idle the longest
 * (no request in flight, least recently answered), or, when every one has a request in flight,
 * one waiting for its body (uploadToCut), else itself. Says so on stderr.
 */
export const limitConnections = (
  server: Server,
  { max, name, requestEvents = ['request'], awaitingBody }: ConnectionLimit,
) => {
  // Least recently active first: a connection goes to the end when it opens and after each answer.
  const open = new Map<Socket, { inFlight: number }>();
  let closedIdle = 0;
  let cutUploads = 0;
  let refused = 0;
  let reporting = false;
  const reportSoon = () => {
    if (reporting) return;
    reporting = true;
    setTimeout(() => {
      const cut = cutUploads ? `, cut ${cutUploads} upload(s) waiting for their body` : '';
      console.warn(
        timestamped(
          `${name}: closed ${closedIdle} idle connection(s)${cut}${refused ? ` and refused ${refused} new one(s)` : ''} ` +
            `to keep within ${max} open connections (the process's open-files limit)`,
        ),
      );
      closedIdle = cutUploads = refused = 0;
      reporting = false;
    }, REPORT_EVERY_MS).unref();
  };

  const makeRoomFor = (newcomer: Socket) => {
    for (const [socket, state] of open) {
      if (socket === newcomer) break;
      if (state.inFlight === 0) {
        open.delete(socket);
        socket.destroy();
        closedIdle += 1;
        return reportSoon();
      }
    }
    const upload = awaitingBody && uploadToCut(open.keys(), awaitingBody);
    if (upload) {
      open.delete(upload);
      upload.destroy();
      cutUploads += 1;
      return reportSoon();
    }
    open.delete(newcomer);
    newcomer.destroy();
    refused += 1;
    reportSoon();
  };

  server.on('connection', (socket: Socket) => {
    open.set(socket, { inFlight: 0 });
    socket.once('close', () => open.delete(socket));
    if (open.size > max) makeRoomFor(socket);
  });
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket as Socket;
    const state = open.get(socket);
    if (!state) return;
    state.inFlight += 1;
    res.once('close', () => {
      state.inFlight -= 1;
      if (open.delete(socket)) open.set(socket, state); // to the end: the most recently active
    });
  };
  for (const event of requestEvents) server.on(event, onRequest);
};
