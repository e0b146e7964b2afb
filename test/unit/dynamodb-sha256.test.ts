// The functions' DynamoDB client hashes and signs with KeyObjectSha256 (shared/dynamodb/sha256.ts)
// and one request signer for its life (shared/dynamodb/client.ts): the same digests as the SDK's
// own SHA-256, and the same signature on the same request as the SDK's default client.
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { Sha256 } from '@smithy/core/checksum';
import { afterEach, expect, test, vi } from 'vitest';
import { createDynamoDBClient, DYNAMODB_TIME_BUDGET } from '../../shared/dynamodb/client.ts';
import { createDocumentClient } from '../../shared/dynamodb/document-client.ts';
import { KeyObjectSha256 } from '../../shared/dynamodb/sha256.ts';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const digestOf = async (Hash: typeof KeyObjectSha256, secret: unknown, ...parts: unknown[]) => {
  const hash = new Hash(secret as never);
  for (const part of parts) hash.update(part as never);
  return hex(await hash.digest());
};

test('digests as the SDK: hashes and HMACs of strings, bytes and views, keys reused and reset', async () => {
  const key = new Uint8Array(32).map((_, i) => i * 7);
  const inputs: unknown[][] = [
    [],
    ['AWS4-HMAC-SHA256\n20261127T000000Z\n20261127/us-east-1/dynamodb/aws4_request\nabc'],
    [new TextEncoder().encode('{"TableName":"pets"}'), 'and more', new Uint8Array([0, 255, 1]).subarray(1)],
  ];
  for (const secret of [undefined, 'AWS4secret', 'AWS4sécret✓', key, key.subarray(4)]) {
    for (const parts of inputs) {
      expect(await digestOf(KeyObjectSha256, secret, ...parts)).toBe(await digestOf(Sha256 as never, secret, ...parts));
    }
  }
  // The same key object again (the signer's cached signing key), and a reset hash.
  const hmac = new KeyObjectSha256(key);
  hmac.update('x');
  hmac.reset();
  hmac.update('y');
  expect(hex(await hmac.digest())).toBe(await digestOf(Sha256 as never, key, 'y'));
  const hash = new KeyObjectSha256();
  hash.update('a');
  const first = hex(await hash.digest());
  hash.update('b'); // a plain hash may be read, then updated further, as the SDK's may
  expect([first, hex(await hash.digest())]).toEqual([
    await digestOf(Sha256 as never, undefined, 'a'),
    await digestOf(Sha256 as never, undefined, 'ab'),
  ]);
});

afterEach(() => vi.useRealTimers());

type Headers = Record<string, string>;
/** A finalize step that sees the request's headers, then goes on (or throws, to stop the call). */
const onHeaders = (see: (headers: Headers) => void) =>
  ((next: (args: unknown) => Promise<unknown>) => (args: { request: { headers: Headers } }) => {
    see(args.request.headers);
    return next(args);
  }) as never;

/**
 * `client` made to stop each call once signed: `sign()` is the Authorization header of its next
 * GetItem. Its steps are added once, before its first call (a client with the handler cache
 * resolves each command's steps once).
 */
const stoppedAfterSigning = (client: DynamoDBClient) => {
  let authorization = '';
  // The headers that differ from call to call (a random id) and from client to client (the agent).
  client.middlewareStack.addRelativeTo(
    onHeaders((headers) => {
      headers['amz-sdk-invocation-id'] = 'the-same-id';
      // Both name the client's settings: its agent, its retry strategy's attempts.
      headers['x-amz-user-agent'] = 'the-same-agent';
      headers['amz-sdk-request'] = 'attempt=1; max=3';
    }),
    { relation: 'before', toMiddleware: 'httpSigningMiddleware', name: 'sameInvocationId' },
  );
  client.middlewareStack.addRelativeTo(
    onHeaders((headers) => {
      authorization = headers.authorization!;
      throw new Error('stop before sending');
    }),
    { relation: 'after', toMiddleware: 'httpSigningMiddleware', name: 'captureSignature' },
  );
  return {
    sign: async (): Promise<string> => {
      await expect(client.send(new GetItemCommand({ TableName: 'pets', Key: { id: { N: '1' } } }))).rejects.toThrow(
        'stop before sending',
      );
      return authorization;
    },
  };
};

/** The Authorization header `client` signs a GetItem with, the request stopped before it is sent. */
const signatureOf = (client: DynamoDBClient): Promise<string> => stoppedAfterSigning(client).sign();

test("the functions' client signs a request as the SDK's default SHA-256 would, over several days' keys", async () => {
  const config = {
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'a-secret' },
    maxAttempts: 1,
  };
  const ours = createDocumentClient();
  expect(ours.config.sha256).toBe(KeyObjectSha256);
  vi.useFakeTimers({ toFake: ['Date'] });
  for (const day of ['2026-11-27T10:00:00Z', '2026-11-27T11:00:00Z', '2026-11-28T00:00:01Z']) {
    vi.setSystemTime(new Date(day));
    const signed = await signatureOf(new DynamoDBClient({ ...config, sha256: KeyObjectSha256 }));
    expect(signed).toMatch(/^AWS4-HMAC-SHA256 Credential=local\/\d{8}\/us-east-1\/dynamodb\/aws4_request/);
    expect(signed).toBe(await signatureOf(new DynamoDBClient(config)));
  }
});

test("the functions' plain client signs with one signer for its life, as the SDK's default client, day after day", async () => {
  const connection = {
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'a-secret' },
  };
  const ours = createDynamoDBClient(DYNAMODB_TIME_BUDGET, undefined, connection);
  const signer = await ours.config.signer();
  expect(await ours.config.signer()).toBe(signer);
  const stopped = stoppedAfterSigning(ours);
  vi.useFakeTimers({ toFake: ['Date'] });
  for (const day of ['2026-11-27T10:00:00Z', '2026-11-27T11:00:00Z', '2026-11-28T00:00:01Z']) {
    vi.setSystemTime(new Date(day));
    const signed = await stopped.sign();
    expect(signed).toMatch(/^AWS4-HMAC-SHA256 Credential=local\/\d{8}\/us-east-1\/dynamodb\/aws4_request/);
    expect(signed).toBe(await signatureOf(new DynamoDBClient(connection)));
  }
  expect(await ours.config.signer()).toBe(signer);
});
