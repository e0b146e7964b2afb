// Limits per key over HTTP (docs/api.md, "Limits per key"): a key over its own rate
// or daily quota gets 429 with Retry-After while another key, at the same moment, is
// served. The limits are the README's PETSTORE_KEY_RATE / _BURST / _QUOTA.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTables, startEmbeddedDynamoDB } from '../../infra/local/embedded-dynamodb.ts';
import { localClientConfig } from '../../infra/local/function-environment.ts';
import { generateKey, hashKey } from '../../shared/domain/api-keys.ts';
import { keysTable } from '../../shared/dynamodb/tables.ts';
import { type LocalServer, newDataDir } from '../../tools/harness/local-server.ts';
import { bearer, call, disposeServer, expectError, issueKey, keyTool, startServer } from './support.ts';

describe('rate and burst', () => {
  let server: LocalServer;
  let other: { key: string };
  beforeAll(async () => {
    // The stage's own throttle stays far above: only the keys' limits can refuse.
    // The authorizer's answers cached, as deployed: the requests reach the limiter together.
    server = await startServer({
      PETSTORE_KEY_RATE: '1',
      PETSTORE_KEY_BURST: '3',
      PETSTORE_AUTHORIZER_CACHE_TTL: '300',
    });
    other = await issueKey(server.dataDir, 'e2e key limits');
  });
  afterAll(() => disposeServer(server));

  it('one key past its burst gets 429 with Retry-After; another key at the same moment gets 200', async () => {
    // One request each fills the authorizer cache; then the noisy key's bucket is full again.
    await Promise.all([
      call(server, '/pets?limit=1'),
      call(server, '/pets?limit=1', { authorization: bearer(other.key) }),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const started = performance.now();
    const [noisy, quiet] = await Promise.all([
      Promise.all(Array.from({ length: 10 }, () => call(server, '/pets?limit=1'))),
      Promise.all(Array.from({ length: 3 }, () => call(server, '/pets?limit=1', { authorization: bearer(other.key) }))),
    ]);
    const seconds = (performance.now() - started) / 1000;
    const served = noisy.filter((reply) => reply.status === 200).length;
    // A bucket of 3 that refills 1 a second: 3, and one more for each second the burst took.
    expect(served, JSON.stringify(noisy.map((reply) => reply.status))).toBeGreaterThanOrEqual(3);
    expect(served).toBeLessThanOrEqual(3 + Math.ceil(seconds));
    expect(served).toBeLessThan(10);
    for (const reply of noisy.filter((r) => r.status !== 200)) {
      expectError(reply, 429, 'TOO_MANY_REQUESTS', [server.key]);
      expect(reply.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    }
    expect(quiet.map((reply) => reply.status)).toEqual([200, 200, 200]);
  });

  it("the key tool's list shows each key's limits, as the same variables set them", async () => {
    const saved = { ...process.env };
    Object.assign(process.env, { PETSTORE_KEY_RATE: '1', PETSTORE_KEY_BURST: '3', PETSTORE_KEY_QUOTA: '250' });
    try {
      const listed = await keyTool(server.dataDir, 'list');
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toContain('1/s, burst 3, 250/day');
    } finally {
      process.env = saved;
    }
  });
});

describe('daily quota', () => {
  let server: LocalServer;
  let other: { key: string };
  beforeAll(async () => {
    server = await startServer({ PETSTORE_KEY_QUOTA: '3' });
    other = await issueKey(server.dataDir, 'e2e key quota');
  });
  afterAll(() => disposeServer(server));

  it('a key past its quota gets 429 saying when it starts over; another key is still served', async () => {
    for (let i = 0; i < 3; i++) expect((await call(server, '/pets?limit=1')).status).toBe(200);
    const over = await call(server, '/pets?limit=1');
    const body = expectError(over, 429, 'TOO_MANY_REQUESTS', [server.key]);
    expect(body.message).toMatch(/quota.*00:00 UTC/);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(1);
    expect((await call(server, '/pets?limit=1', { authorization: bearer(other.key) })).status).toBe(200);
  });
});

describe('daily quota across restarts', () => {
  const dataDir = newDataDir();
  let server: LocalServer | undefined;
  afterAll(() => disposeServer(server));
  const statuses = async (n: number) => {
    const got: number[] = [];
    for (let i = 0; i < n; i++) got.push((await call(server!, '/pets?limit=1')).status);
    return got;
  };

  // A usage plan's count is API Gateway's, not the deployment's: it carries on through a restart
  // (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-api-usage-plans.html).
  it('is not reset by a restart, nor by a kill -9 a moment after the requests', async () => {
    server = await startServer({ PETSTORE_DATA_DIR: dataDir, PETSTORE_KEY_QUOTA: '20' });
    const first = await statuses(25);
    expect(first.filter((s) => s === 200)).toHaveLength(20);
    expect(first.slice(20)).toEqual([429, 429, 429, 429, 429]);
    expect(await server.stop('SIGTERM')).toBe(0);

    server = await startServer({ PETSTORE_DATA_DIR: dataDir, PETSTORE_KEY_QUOTA: '20' });
    expect(await statuses(3)).toEqual([429, 429, 429]);
    await server.stop('SIGKILL');

    // Below the quota, then killed a moment later: what it counted is kept.
    server = await startServer({ PETSTORE_DATA_DIR: dataDir, PETSTORE_KEY_QUOTA: '30' });
    expect(await statuses(10)).toEqual(Array(10).fill(200));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await server.stop('SIGKILL');
    server = await startServer({ PETSTORE_DATA_DIR: dataDir, PETSTORE_KEY_QUOTA: '30' });
    expect(await statuses(1)).toEqual([429]);
  }, 90_000);
});

describe('keys issued before usage plans', () => {
  it('are put in the local usage plan when the server starts, and served', async () => {
    // A data directory holding a key stored as keys were before: no usage identifier.
    const dataDir = newDataDir();
    const key = generateKey();
    const dynamodb = await startEmbeddedDynamoDB(dataDir);
    try {
      await ensureTables(dynamodb.endpoint);
      const client = DynamoDBDocumentClient.from(new DynamoDBClient(localClientConfig(dynamodb.endpoint)));
      const Item = {
        keyHash: hashKey(key),
        keyId: 'key_BeforePlan',
        label: 'old',
        createdAt: '2026-01-01T00:00:00.000Z',
      };
      await client.send(new PutCommand({ TableName: keysTable.name, Item }));
      client.destroy();
    } finally {
      await dynamodb.close();
    }
    const server = await startServer({ PETSTORE_DATA_DIR: dataDir });
    try {
      expect((await call(server, '/pets?limit=1', { authorization: bearer(key) })).status).toBe(200);
    } finally {
      await disposeServer(server);
    }
  });
});
