// The embedded DynamoDB's credential. dynalite checks only that a request is signed,
// not with what; on loopback any local user could then read and write the tables,
// mint keys or un-revoke them. Here each request's Signature Version 4 is verified
// against a secret kept in the data directory (0600, data-dir.ts) before dynalite
// sees the request, as DynamoDB verifies it against the caller's secret access key.
//
// A client reaches the store through one URL that carries the credential as user
// info, `http://local:<secret>@127.0.0.1:<port>`, as a database URL carries its
// password; localClientConfig and functionEnvironment split it for the SDK.
import { createHash, createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';

/** The access key id of every local credential; the secret is what is checked. */
export const LOCAL_ACCESS_KEY_ID = 'local';

export interface DynamoDBConnection {
  /** The URL the SDK calls, without user info. */
  endpoint: string;
  secretAccessKey: string | undefined;
}

/** `url` with the secret as its user info. */
export const withCredential = (url: string, secretAccessKey: string): string => {
  const parsed = new URL(url);
  parsed.username = LOCAL_ACCESS_KEY_ID;
  parsed.password = secretAccessKey;
  return parsed.href.replace(/\/$/, '');
};

/** The endpoint and secret of a connection URL (a URL without user info has no secret). */
export const parseConnection = (url: string): DynamoDBConnection => {
  const parsed = new URL(url);
  const secretAccessKey = parsed.password ? decodeURIComponent(parsed.password) : undefined;
  parsed.username = '';
  parsed.password = '';
  return { endpoint: parsed.href.replace(/\/$/, ''), secretAccessKey };
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

/** True when `req` (with `body`) carries a Signature Version 4 made with `secretAccessKey`. */
const signedWith = (req: IncomingMessage, body: Buffer, secretAccessKey: string): boolean => {
  const match = AUTHORIZATION.exec(req.headers.authorization ?? '');
  const amzDate = req.headers['x-amz-date'];
  if (!match || typeof amzDate !== 'string' || !req.url || req.url.includes('?')) return false;
  const [, accessKeyId, date, region, service, signedHeaders, signature] = match as unknown as string[];
  if (accessKeyId !== LOCAL_ACCESS_KEY_ID) return false;
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
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const expected = hmac(signingKey(secretAccessKey, scope, date!, region!, service!), stringToSign);
  return timingSafeEqual(expected, Buffer.from(signature!, 'hex'));
};

const refuse = (res: ServerResponse) => {
  const body = JSON.stringify({
    __type: 'com.amazon.coral.service#UnrecognizedClientException',
    message: 'The security token included in the request is invalid.',
  });
  res.writeHead(400, { 'Content-Type': 'application/x-amz-json-1.0', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
};

/** dynalite's own limit: bigger requests are refused before they are buffered whole. */
const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

/** Puts the signature check in front of `server`'s request listener (dynalite's). */
export const requireCredential = (server: Server, secretAccessKey: string): void => {
  const [store] = server.listeners('request') as RequestListener[];
  if (!store) throw new Error('the embedded DynamoDB has no request listener to guard');
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        res.writeHead(413, { Connection: 'close' }).end();
        req.destroy();
      } else chunks.push(chunk);
    });
    req.once('end', () => {
      const body = Buffer.concat(chunks);
      if (!signedWith(req, body, secretAccessKey)) return refuse(res);
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
    });
  });
};
