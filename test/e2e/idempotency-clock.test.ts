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
import { type Animal, allPages, expectError, postPet, type Reply } from './support.ts';

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
  proxy.loseAnswerWhen = undefined;
});

/** Every animal named `name` (the names of these tests are unique). */
const listNamed = async (name: string): Promise<Animal[]> =>
  (await allPages(server, '/pets?limit=100')).flatMap((page) => page.body).filter((animal) => animal.name === name);

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

  it('a 503 whose animal was written after all (every answer lost): the retry replays that animal, makes no second', async () => {
    const key = randomUUID();
    const body = { name: `Lost answer ${key}`, categoryId: 5 };
    proxy.loseAnswerWhen = ({ operation, table }) => operation === 'PutItem' && table === petsTable.name;
    expectError(await postPet(server, body, withKey(key)), 503, 'SERVICE_UNAVAILABLE');
    proxy.loseAnswerWhen = undefined;

    const retried = await postPet<Animal>(server, body, withKey(key));
    expect(retried.status).toBe(201);
    expect(replayed(retried)).toBe(true);
    const again = await postPet<Animal>(server, body, withKey(key));
    expect(replayed(again)).toBe(true);
    expect(again.body).toEqual(retried.body);
    const named = await listNamed(body.name);
    expect(named).toEqual([retried.body]);
  });

  it('after a 503 the same key with another body is 422: the first body may have made its animal', async () => {
    const key = randomUUID();
    proxy.failWhen = ({ operation, table }) => operation === 'PutItem' && table === petsTable.name;
    expectError(
      await postPet(server, { name: `First ${key}`, categoryId: 6 }, withKey(key)),
      503,
      'SERVICE_UNAVAILABLE',
    );
    proxy.failWhen = undefined;
    expectError(
      await postPet(server, { name: `Other ${key}`, categoryId: 6 }, withKey(key)),
      422,
      'UNPROCESSABLE_ENTITY',
    );
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

  it('a create with a key adds two writes of its record; a replay is one write and one read', async () => {
    const key = randomUUID();
    const body = { name: `Counted ${key}`, categoryId: 4 };
    await postPet(server, body); // the container's id block is taken: what follows is the steady state
    const plain = await count(() => postPet(server, body));
    expect(plain.requests).toEqual(['PutItem pets']);
    const keyed = await count(() => postPet(server, body, withKey(key)));
    // The record is taken (naming the animal's id) before the animal is written, and completed after.
    expect(keyed.requests).toEqual(['UpdateItem idempotency', 'PutItem pets', 'UpdateItem idempotency']);
    const replay = await count(() => postPet(server, body, withKey(key)));
    expect(replayed(replay.reply)).toBe(true);
    // The conditional write that would take the record fails, and the record is read back.
    expect(replay.requests).toEqual(['UpdateItem idempotency', 'GetItem idempotency']);
  });
});
