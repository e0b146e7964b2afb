// The DynamoDB client's SHA-256 (its `sha256` setting): the SDK's own Node implementation
// (createHash, createHmac) but for one thing. Node 24 tells a Buffer key from a KeyObject by
// catching a thrown error (its KeyObject brand check, https://github.com/nodejs/node/pull/63111),
// so each HMAC keyed with bytes pays ~12 µs for two exceptions before hashing a few hundred
// bytes. The request signer keys one HMAC per call with the day's signing key, the same bytes
// for the day (the SDK caches them); here those bytes become a KeyObject once, and every later
// HMAC skips the check. A string key (the signer's per-call HMAC of the secret access key, which
// names its cache entry) has no such check: it goes to createHmac as it is, 2.4 µs an HMAC, where
// making it a KeyObject first cost 3.8 (200,000 HMACs, Node 24.21). The signatures are the same
// (test/unit/dynamodb-sha256.test.ts).
import { createHash, createHmac, createSecretKey, type Hash, type Hmac, type KeyObject } from 'node:crypto';

type SourceData = string | ArrayBuffer | ArrayBufferView;

const bytes = (data: SourceData): Buffer =>
  typeof data === 'string'
    ? Buffer.from(data, 'utf8')
    : ArrayBuffer.isView(data)
      ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      : Buffer.from(data);

/** The signing keys seen, as long as the SDK holds them (it replaces them each day). */
const keys = new WeakMap<object, KeyObject>();
const keyOf = (secret: SourceData): KeyObject | string => {
  if (typeof secret === 'string') return secret; // createHmac reads it as UTF-8, as bytes() does
  let key = keys.get(secret);
  if (!key) {
    key = createSecretKey(bytes(secret));
    keys.set(secret, key);
  }
  return key;
};

/** The SDK's Checksum interface (@smithy/types): a hash, or an HMAC with `secret`. */
export class KeyObjectSha256 {
  readonly digestLength = 32;
  private readonly secret: SourceData | undefined;
  private hash: Hash | Hmac;
  constructor(secret?: SourceData) {
    this.secret = secret;
    this.hash = this.create();
  }
  private create(): Hash | Hmac {
    return this.secret ? createHmac('sha256', keyOf(this.secret)) : createHash('sha256');
  }
  update(data: SourceData): void {
    this.hash.update(typeof data === 'string' ? data : bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    // As the SDK's: a plain hash may be read and updated further, an HMAC only once.
    const digest = this.secret ? this.hash.digest() : (this.hash as Hash).copy().digest();
    return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength);
  }
  reset(): void {
    this.hash = this.create();
  }
}
