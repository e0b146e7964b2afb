// Safe retries over HTTP where the outside world must be bent: the local stage runs in
// this process, so the clock can be moved (a record's 24 hours must end without TTL,
// which dynalite lacks) and its DynamoDB reached through a proxy that counts the
// requests and fails some of them (a first attempt that fails may be retried).
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type LocalStage, startLocalStage } from '../../infra/local/stage.ts';
import { IDEMPOTENCY_WINDOW_SECONDS } from '../../shared/api/idempotency.ts';
import { idempotencyTable, petsTable } from '../../shared/dynamodb/tables.ts';
import { type DynamoDBProxy, startDynamoDBProxy } from '../../tools/harness/dynamodb-proxy.ts';
import { type LocalServer, newDataDir } from '../../tools/harness/local-server.ts';
import { type Animal, expectError, postPet, type Reply } from './support.ts';

let stage: LocalStage;
let proxy: DynamoDBProxy;
/** What the black-box helpers need of a server. */
let server: LocalServer;

beforeAll(async () => {
  stage = await startLocalStage({
    port: 0,
    host: '127.0.0.1',
    dataDir: newDataDir(),
    authorizerCacheTtlSeconds: 0,
    throttle: { rate: 1e6, burst: 1e6 },
    logLevel: 'SILENT',
  });
  proxy = await startDynamoDBProxy(stage.dynamodbEndpoint);
  // The functions make their DynamoDB client on first use, so from here on they go through the proxy.
  process.env.AWS_ENDPOINT_URL_DYNAMODB = proxy.endpoint;
  server = { baseUrl: stage.baseUrl, key: stage.key } as LocalServer;
});
afterAll(async () => {
  await proxy?.close();
  await stage?.close();
  if (stage) rmSync(stage.dataDir, { recursive: true, force: true });
});
afterEach(() => {
  vi.useRealTimers();
  proxy.failWhen = undefined;
});

const withKey = (key: string) => ({ headers: { 'Idempotency-Key': key } });
const replayed = (reply: Reply) => reply.headers.get('idempotent-replayed') === 'true';

describe('expiry', () => {
  it('a key replays until 24 hours after its create, and creates anew after them', async () => {
    const key = randomUUID();
    const body = { name: `Expiry ${key}`, categoryId: 1 };
    const first = await postPet<Animal>(server, body, withKey(key));
    expect(first.status).toBe(201);

    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + (IDEMPOTENCY_WINDOW_SECONDS - 60) * 1000 });
    const late = await postPet<Animal>(server, body, withKey(key));
    expect(late.status).toBe(201);
    expect(replayed(late)).toBe(true);
    expect(late.body.id).toBe(first.body.id);

    vi.setSystemTime(Date.now() + 120 * 1000);
    const after = await postPet<Animal>(server, body, withKey(key));
    expect(after.status).toBe(201);
    expect(replayed(after)).toBe(false);
    expect(after.body.id).not.toBe(first.body.id);
    // …and the new create starts a new 24 hours.
    const again = await postPet<Animal>(server, body, withKey(key));
    expect(replayed(again)).toBe(true);
    expect(again.body.id).toBe(after.body.id);
  });
});

describe('a failed first attempt', () => {
  it('a 503 is not remembered: the same key and body, retried, creates the animal', async () => {
    const key = randomUUID();
    const body = { name: `Retried ${key}`, categoryId: 2 };
    proxy.failWhen = ({ operation, table }) => operation === 'PutItem' && table === petsTable.name;
    const failed = await postPet(server, body, withKey(key));
    expectError(failed, 503, 'SERVICE_UNAVAILABLE');
    proxy.failWhen = undefined;

    const retried = await postPet<Animal>(server, body, withKey(key));
    expect(retried.status).toBe(201);
    expect(replayed(retried)).toBe(false);
    expect(replayed(await postPet(server, body, withKey(key)))).toBe(true);
  });

  it('the idempotency table failing is a 503 too, and nothing is created', async () => {
    const key = randomUUID();
    proxy.failWhen = ({ table }) => table === idempotencyTable.name;
    proxy.reset();
    expectError(
      await postPet(server, { name: `Unstored ${key}`, categoryId: 3 }, withKey(key)),
      503,
      'SERVICE_UNAVAILABLE',
    );
    expect(proxy.requests.filter((r) => r.table === petsTable.name)).toEqual([]);
  });
});

describe('DynamoDB requests on the wire', () => {
  const count = async (send: () => Promise<Reply>) => {
    proxy.reset();
    const reply = await send();
    return {
      reply,
      requests: proxy.requests.filter((r) => r.table !== 'keys').map((r) => `${r.operation} ${r.table}`),
    };
  };

  it('a create with a key adds a put and an update of its record; a replay is one put and one read', async () => {
    const key = randomUUID();
    const body = { name: `Counted ${key}`, categoryId: 4 };
    await postPet(server, body); // the container's id block is taken: what follows is the steady state
    const plain = await count(() => postPet(server, body));
    expect(plain.requests).toEqual(['PutItem pets']);
    const keyed = await count(() => postPet(server, body, withKey(key)));
    expect(keyed.requests).toEqual(['PutItem idempotency', 'PutItem pets', 'UpdateItem idempotency']);
    const replay = await count(() => postPet(server, body, withKey(key)));
    expect(replayed(replay.reply)).toBe(true);
    // dynalite ignores ReturnValuesOnConditionCheckFailure, so Powertools reads the record
    // back; DynamoDB returns it with the failed put, and a replay is that one request.
    expect(replay.requests).toEqual(['PutItem idempotency', 'GetItem idempotency']);
  });
});
