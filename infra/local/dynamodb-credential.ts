// The embedded DynamoDB's credential, for what reaches it over TCP. dynalite checks only that a
// request is signed, not with what; on loopback any local user could then read and write the
// tables, mint keys or un-revoke them. Here each request's Signature Version 4 is verified
// against the store's secret before dynalite sees the request, as DynamoDB verifies it against
// the caller's secret access key. The server's own functions and the key tool do not come this
// way: they reach the store through a Unix socket in the data directory, which the file
// system keeps its user's alone (dynamodb-socket.ts), and pay no check. The TCP port is for a
// developer's tools (the AWS CLI, NoSQL Workbench: docs/local-dynamodb.md).
//
// A client reaches the store through one URL that carries the credential as user info, and
// the socket as `?socket=`, `http://local:<secret>@127.0.0.1:<port>?socket=<path>`, as a database
// URL carries its password; localClientConfig and functionEnvironment split it for the SDK.
//
// The secret is new at every start and its file removed at the stop (embedded-dynamodb.ts), and a
// request's X-Amz-Date must be within 15 minutes of the store's clock, as AWS requires: a request
// captured once cannot be replayed after a restart or past the window.
//
// The port is any local user's to find (`ss -tln`), and a signature can only be checked
// once the whole body is in, so the headers decide first whether a body is read at all.
// The access key id (`local`) is no secret; the session token is: derived from the secret
// (sessionTokenOf), it comes with every request as X-Amz-Security-Token, as the SDK sends
// a temporary credential's token, and a request without it cannot come from anyone who
// read the secret: it is refused unread.
// What is read is capped per request (MAX_REQUEST_BYTES) and, across connections, by one
// budget (BODIES_IN_FLIGHT_BYTES): 100 unsigned 15 MiB bodies, never finished, had grown
// the server by 1.5 GB, and kept it.
import { createHash, createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { closeAfterAnswer } from './request-body.ts';

/** The access key id of every local credential; the secret is what is checked. */
export const LOCAL_ACCESS_KEY_ID = 'local';

/**
 * The session token that goes with `secret`: not the secret (it travels in every request's
 * headers), but known only to whoever read it: an HMAC keyed with it.
 */
const sessionTokenOf = (secret: string): string =>
  createHmac('sha256', secret).update('session token').digest('base64url');

export interface DynamoDBConnection {
  /** The URL the SDK calls, without user info. */
  endpoint: string;
  /** The Unix socket to connect to instead of the endpoint's port (dynamodb-socket.ts), if any. */
  socketPath: string | undefined;
  secretAccessKey: string | undefined;
  /** The secret's session token (sessionTokenOf), when there is a secret. */
  sessionToken: string | undefined;
}

/** `url` with the secret as its user info, and the socket to reach it through. */
export const withCredential = (url: string, secretAccessKey: string, socketPath?: string): string => {
  const parsed = new URL(url);
  parsed.username = LOCAL_ACCESS_KEY_ID;
  parsed.password = secretAccessKey;
  if (socketPath) parsed.searchParams.set('socket', socketPath);
  return parsed.href.replace(/\/(\?|$)/, '$1');
};

/** The endpoint and credential of a connection URL (a URL without user info has none). */
export const parseConnection = (url: string): DynamoDBConnection => {
  const parsed = new URL(url);
  const secretAccessKey = parsed.password ? decodeURIComponent(parsed.password) : undefined;
  parsed.username = '';
  parsed.password = '';
  const socketPath = parsed.searchParams.get('socket') ?? undefined;
  parsed.search = '';
  const sessionToken = secretAccessKey === undefined ? undefined : sessionTokenOf(secretAccessKey);
  return { endpoint: parsed.href.replace(/\/$/, ''), socketPath, secretAccessKey, sessionToken };
};

const hmac = (key: string | Buffer | KeyObject, data: string) => createHmac('sha256', key).update(data).digest();
const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;

/**
 * The signing key of a scope (day, region, service): four HMACs, the same for every request of
 * the day, so derived once per scope, as the SDK's signer caches it on its side. Per request that
 * leaves one HMAC and two hashes (docs/performance.md: the four cost more than the rest of the check).
 * Kept as a KeyObject: Node 24 tells a Buffer key from a KeyObject by catching a thrown error
 * (its KeyObject brand check, nodejs/node#63111), ~12 µs per HMAC that a KeyObject skips.
 */
let lastKey: { secret: string; scope: string; key: KeyObject } | undefined;
const signingKey = (secret: string, scope: string, date: string, region: string, service: string): KeyObject => {
  if (lastKey?.secret !== secret || lastKey.scope !== scope) {
    const key = createSecretKey(hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request'));
    lastKey = { secret, scope, key };
  }
  return lastKey.key;
};

/** How far a request's X-Amz-Date may be from the store's clock, either way: AWS's 15 minutes. */
const REQUEST_TIME_WINDOW_MS = 15 * 60 * 1000;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

/** True when `amzDate` (X-Amz-Date, `YYYYMMDDTHHMMSSZ`) is within the window of now. */
const isRecent = (amzDate: string): boolean => {
  const parts = AMZ_DATE.exec(amzDate);
  if (!parts) return false;
  const [, year, month, day, hour, minute, second] = parts.map(Number) as number[];
  const time = Date.UTC(year!, month! - 1, day!, hour!, minute!, second!);
  return Math.abs(Date.now() - time) <= REQUEST_TIME_WINDOW_MS;
};

/**
 * The parts of `req`'s Authorization header (access key id, date, region, service, signed
 * headers, signature) when, as far as headers tell, it may be signed with this store's secret:
 * a Signature Version 4 with `token` (compared in constant time) as its session token, dated
 * within the window.
 * Undefined: no client that read the secret sent it, and its body need not be read to refuse it.
 */
const claimOf = (req: IncomingMessage, token: Buffer): string[] | undefined => {
  const given = req.headers['x-amz-security-token'];
  // Node reads a header as Latin-1, a character a byte: so many bytes again (UTF-8 would make some two, and
  // timingSafeEqual throws on buffers of unequal length).
  if (
    typeof given !== 'string' ||
    given.length !== token.length ||
    !timingSafeEqual(Buffer.from(given, 'latin1'), token)
  )
    return undefined;
  const match = AUTHORIZATION.exec(req.headers.authorization ?? '');
  const date = req.headers['x-amz-date'];
  if (!match || typeof date !== 'string' || !req.url || req.url.includes('?')) return undefined;
  // Signed for the day it names, within the window: a captured request dies with it (AWS's rule,
  // https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-signing-elements.html).
  if (!isRecent(date) || !date.startsWith(match[2]!)) return undefined;
  return match[1] === LOCAL_ACCESS_KEY_ID ? (match as unknown as string[]) : undefined;
};

/** True when `req` (with `body`), whose header made `claim`, carries a signature made with `secretAccessKey`. */
const signedWith = (req: IncomingMessage, claim: string[], body: Buffer, secretAccessKey: string): boolean => {
  const [, , date, region, service, signedHeaders, signature] = claim;
  const names = signedHeaders!.split(';');
  if (!names.includes('host')) return false;
  const canonicalHeaders = names
    .map(
      (name) =>
        `${name}:${String(req.headers[name] ?? '')
          .trim()
          .replace(/\s+/g, ' ')}\n`,
    )
    .join('');
  // The body as received, never the client's x-amz-content-sha256 (which it may sign instead):
  // trusting that header let a request signed once be replayed with any other body. A header
  // that disagrees with the body then fails the signature, as it does on AWS.
  const payloadHash = sha256Hex(body);
  const canonicalRequest = [req.method, req.url, '', canonicalHeaders, signedHeaders, payloadHash].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', req.headers['x-amz-date'], scope, sha256Hex(canonicalRequest)].join('\n');
  const expected = hmac(signingKey(secretAccessKey, scope, date!, region!, service!), stringToSign);
  return timingSafeEqual(expected, Buffer.from(signature!, 'hex'));
};

/**
 * What one request may send. The service's clients send a few KB at most: its largest request
 * is bench/support/seed.ts's BatchWriteItem of 25 animals (names of 200 characters at most, under
 * 40 KB even in the characters JSON spells longest); 1 MiB still holds any one item DynamoDB
 * itself stores (400 KB). DynamoDB's own limit, 16 MB, would let each connection hold 16 MB.
 */
export const MAX_REQUEST_BYTES = 1024 * 1024;
/**
 * What the bodies being read may hold at once, together: 16 of the largest, thousands of the
 * service's. Past it a request is throttled, as DynamoDB throttles (the SDK retries).
 */
export const BODIES_IN_FLIGHT_BYTES = 16 * 1024 * 1024;

const UNRECOGNIZED = {
  __type: 'com.amazon.coral.service#UnrecognizedClientException',
  message: 'The security token included in the request is invalid.',
};
const TOO_LARGE = {
  __type: 'com.amazon.coral.validate#ValidationException',
  message: `Request size exceeds ${MAX_REQUEST_BYTES} bytes`,
};
const THROTTLED = {
  __type: 'com.amazon.coral.availability#ThrottlingException',
  message: 'Rate of requests exceeds the allowed throughput.',
};

/** Answers `req` with DynamoDB's error `error`; what is left of its body is not read (closeAfterAnswer). */
const refuse = (req: IncomingMessage, res: ServerResponse, status: number, error: object) => {
  const body = JSON.stringify(error);
  if (!req.complete) closeAfterAnswer(res);
  res.writeHead(status, { 'Content-Type': 'application/x-amz-json-1.0', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
};

/** Puts the signature check in front of `server`'s request listener (dynalite's). */
export const requireCredential = (server: Server, secretAccessKey: string): void => {
  const [store] = server.listeners('request') as RequestListener[];
  if (!store) throw new Error('the embedded DynamoDB has no request listener to guard');
  server.removeAllListeners('request');
  const token = Buffer.from(sessionTokenOf(secretAccessKey));
  let inFlight = 0;
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const claim = claimOf(req, token);
    if (!claim) return refuse(req, res, 400, UNRECOGNIZED);
    // Reserved as declared (Node's parser holds the body to it); a chunked one, as the most it may be.
    const declared = req.headers['content-length'];
    let reserved = declared !== undefined ? Number(declared) : req.headers['transfer-encoding'] ? MAX_REQUEST_BYTES : 0;
    if (reserved > MAX_REQUEST_BYTES) return refuse(req, res, 413, TOO_LARGE);
    if (inFlight + reserved > BODIES_IN_FLIGHT_BYTES) return refuse(req, res, 400, THROTTLED);
    inFlight += reserved;
    const release = () => {
      inFlight -= reserved;
      reserved = 0;
    };
    req.once('close', release); // the client left before the end
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BYTES) return void chunks.push(chunk);
      // Chunked past the limit: what came is dropped, the rest goes unread (and unkept) until the answer closes.
      req.off('data', onData);
      req.off('end', onEnd);
      chunks.length = 0;
      release();
      refuse(req, res, 413, TOO_LARGE);
    };
    const onEnd = () => {
      release();
      const body = Buffer.concat(chunks, size);
      if (!signedWith(req, claim, body, secretAccessKey)) return refuse(req, res, 400, UNRECOGNIZED);
      // dynalite reads the body from the request's 'data' and 'end' events only: hand it the
      // same request again as those two events (a Readable stream per request cost more).
      const replay = Object.assign(new EventEmitter(), {
        headers: req.headers,
        method: req.method,
        url: req.url,
        socket: req.socket,
      });
      store(replay as unknown as IncomingMessage, res);
      if (body.length) replay.emit('data', body);
      replay.emit('end');
    };
    req.on('data', onData);
    req.once('end', onEnd);
  });
};
