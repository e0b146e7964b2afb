// What the embedded DynamoDB holds of request bodies. Its port is any local user's to find
// (`ss -tln`); a body is read only for a request whose headers carry this store's credential,
// never past what the service's own requests need, and all bodies being read share one budget,
// so that no number of connections makes the server hold more than that (dynamodb-credential.ts).
import { rmSync } from 'node:fs';
import net from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { BatchWriteItemCommand, DynamoDBClient, ListTablesCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type EmbeddedDynamoDB, ensureTables, startEmbeddedDynamoDB } from '../../infra/local/embedded-dynamodb.ts';
import { localClientConfig } from '../../infra/local/function-environment.ts';
import { NAME_MAX_LENGTH } from '../../shared/api/schemas.ts';
import { petsTable } from '../../shared/dynamodb/tables.ts';
import { newDataDir } from '../../tools/harness/local-server.ts';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
/** Buffers this process holds (the store's included), once what nobody holds is collected. */
const heldBuffers = () => {
  gc();
  return process.memoryUsage().arrayBuffers;
};

const MiB = 1024 * 1024;
const dataDir = newDataDir();
let dynamodb: EmbeddedDynamoDB;
let port: number;
const clients: DynamoDBClient[] = [];
/** The store's URL with its credential over TCP (not its socket): where any local user's requests arrive. */
const overTcp = () => {
  const url = new URL(dynamodb.endpoint);
  url.searchParams.delete('socket');
  return url.href;
};
const client = () => {
  const made = new DynamoDBClient({ ...localClientConfig(overTcp()), maxAttempts: 1 });
  clients.push(made);
  return made;
};

beforeAll(async () => {
  dynamodb = await startEmbeddedDynamoDB(dataDir);
  await ensureTables(dynamodb.endpoint);
  port = Number(new URL(dynamodb.address).port);
});
afterAll(async () => {
  for (const made of clients) made.destroy();
  await dynamodb.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * Headers as the SDK signs them with this store's credential (its session token, `token`: what
 * localClientConfig gives the SDK), and a signature nobody checked. Without `token`: what any
 * local user can write, the access key id (`local`) being no secret.
 */
const signedLooking = (token = localClientConfig(dynamodb.endpoint).credentials.sessionToken) => {
  const now = new Date().toISOString().replace(/[-:]|\.\d{3}/g, ''); // X-Amz-Date: within the store's window
  return `Authorization: AWS4-HMAC-SHA256 Credential=local/${now.slice(0, 8)}/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=${'0'.repeat(64)}\r\nX-Amz-Date: ${now}\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n${token ? `X-Amz-Security-Token: ${token}\r\n` : ''}`;
};

interface Raw {
  socket: net.Socket;
  /** What the store answered, as far as it came. */
  answer(): string;
  /** Settles when the body is written, the connection ends, or after `ms`. */
  sent: Promise<void>;
}

/** One buffer for every body sent: what the client side holds does not grow with connections. */
const chunk = Buffer.alloc(MiB, 0x61);

/** A POST over a raw connection: `headers`, then `bodyBytes` of a chunked body that never ends (0: none sent). */
const rawRequest = (headers: string, bodyBytes: number, ms = 1_000): Raw => {
  const socket = net.connect(port, '127.0.0.1');
  let answer = '';
  socket.on('data', (data) => {
    answer += data.toString('latin1');
  });
  socket.on('error', () => {});
  const sent = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    socket.once('close', done);
    socket.once('connect', async () => {
      socket.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-amz-json-1.0\r\n${headers}\r\n`);
      for (let left = bodyBytes; left > 0 && !socket.destroyed; left -= MiB) {
        const part = left >= MiB ? chunk : chunk.subarray(0, left);
        socket.write(`${part.length.toString(16)}\r\n`);
        await new Promise<void>((written) => socket.write(part, () => written()));
        socket.write('\r\n');
      }
      if (bodyBytes > 0) done();
    });
  });
  return { socket, answer: () => answer, sent };
};

const statusOf = (raw: Raw) => /^HTTP\/1\.1 (\d{3})/.exec(raw.answer())?.[1];

test('an unsigned client cannot make the store hold its bodies, however many connections it opens', async () => {
  const connections = 8;
  const before = heldBuffers();
  // No signature; one in the SDK's form without a session token; one with a made-up token of its
  // length (43 bytes, one of them past ASCII: headers are read as Latin-1, a byte a character).
  const outsiders = ['', signedLooking(''), signedLooking(`${'A'.repeat(41)}é`)];
  const raws = Array.from({ length: connections }, (_, i) =>
    rawRequest(`${outsiders[i % 3]}Transfer-Encoding: chunked\r\n`, 4 * MiB),
  );
  await Promise.all(raws.map((raw) => raw.sent));
  await new Promise((resolve) => setTimeout(resolve, 200)); // what was sent is read by now, if it is read
  const grown = heldBuffers() - before;
  const answers = raws.map((raw) => raw.answer());
  for (const raw of raws) raw.socket.destroy();
  // 32 MiB were sent; the store took what fits a socket's read buffer, at most, and holds none of it.
  expect(grown).toBeLessThan(4 * MiB);
  // Each was refused from its headers alone, before its body: 400, as DynamoDB refuses an unknown credential.
  for (const answer of answers) expect(answer).toMatch(/^HTTP\/1\.1 400 [\s\S]*UnrecognizedClientException/);
});

test('a request with the store’s credential that declares more than the service ever sends is refused before its body', async () => {
  const raw = rawRequest(`${signedLooking()}Content-Length: ${32 * MiB}\r\n`, 0);
  await expect.poll(() => statusOf(raw), { timeout: 2_000 }).toBe('413');
  raw.socket.destroy();
});

test('a chunked body with the store’s credential is cut at the per-request limit, the connection closed', async () => {
  const before = heldBuffers();
  const raw = rawRequest(`${signedLooking()}Transfer-Encoding: chunked\r\n`, 12 * MiB);
  await raw.sent;
  expect(statusOf(raw)).toBe('413');
  expect(raw.answer()).toMatch(/connection: close/i);
  expect(heldBuffers() - before).toBeLessThan(4 * MiB);
  raw.socket.destroy();
});

test('the bodies being read share one budget: past it requests are throttled, as DynamoDB throttles, until they end', async () => {
  const { BODIES_IN_FLIGHT_BYTES, MAX_REQUEST_BYTES } = await import('../../infra/local/dynamodb-credential.ts');
  // Requests that declare the largest body and send none of it hold the whole budget.
  const holders = Array.from({ length: Math.ceil(BODIES_IN_FLIGHT_BYTES / MAX_REQUEST_BYTES) }, () =>
    rawRequest(`${signedLooking()}Content-Length: ${MAX_REQUEST_BYTES}\r\n`, 0),
  );
  const attempt = () =>
    client()
      .send(new ListTablesCommand({}))
      .then(
        () => 'answered',
        (error: Error) => error.name,
      );
  // The SDK knows ThrottlingException as throttling, and retries it (maxAttempts 1 here, to see it).
  await expect.poll(attempt, { timeout: 2_000, interval: 20 }).toBe('ThrottlingException');
  for (const holder of holders) holder.socket.destroy();
  await expect.poll(attempt, { timeout: 2_000, interval: 20 }).toBe('answered');
});

test('the largest requests the service makes still pass', async () => {
  // bench/support/seed.ts: BatchWriteItem of 25 animals (DynamoDB's most per batch), here with the
  // longest name, in the characters JSON spells longest (\u0001: six bytes each).
  const name = '\u0001'.repeat(NAME_MAX_LENGTH);
  const batch = Array.from({ length: 25 }, (_, i) => ({
    PutRequest: {
      Item: {
        id: { N: String(2_000_000_000 + i) },
        name: { S: name },
        categoryId: { N: '1' },
        status: { S: 'available' },
      },
    },
  }));
  await expect(
    client().send(new BatchWriteItemCommand({ RequestItems: { [petsTable.name]: batch } })),
  ).resolves.toMatchObject({ UnprocessedItems: {} });
  // And any one item DynamoDB itself stores (400 KB at most).
  await expect(
    client().send(
      new PutItemCommand({
        TableName: petsTable.name,
        Item: { id: { N: '2000000100' }, name: { S: 'x'.repeat(399_000) } },
      }),
    ),
  ).resolves.toBeDefined();
});
