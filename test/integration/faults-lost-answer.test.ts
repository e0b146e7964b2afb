// A put that lands but whose answer is lost (slower than the SDK's request timeout):
// the SDK retries it, the retry finds the item already there, and the create must
// still make exactly one animal, not a second one under a new id.
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createCursorCodec } from '../../shared/domain/cursor.ts';
import { DYNAMODB_TIME_BUDGET } from '../../shared/dynamodb/client.ts';
import { createPetsRepository } from '../../shared/dynamodb/pets-repository.ts';
import { countersTable, petsTable } from '../../shared/dynamodb/tables.ts';
import { budgetedClient, startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';

let db: TestDynamoDB;
let proxyEndpoint: string;
let closeProxy: () => void;

beforeAll(async () => {
  db = await startTestDynamoDB();
  const upstream = new URL(db.endpoint);
  let delayedPuts = 0;
  // Forwards everything to dynalite; holds back the first PutItem's answer past the timeout.
  const proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const isPut = String(req.headers['x-amz-target']).endsWith('.PutItem');
      const forward = request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => body.push(chunk));
          answer.on('end', () => {
            const reply = () => {
              if (res.destroyed) return;
              res.writeHead(answer.statusCode!, answer.headers);
              res.end(Buffer.concat(body));
            };
            if (isPut && delayedPuts++ === 0) setTimeout(reply, DYNAMODB_TIME_BUDGET.requestTimeoutMs + 500);
            else reply();
          });
        },
      );
      forward.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
  proxyEndpoint = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  closeProxy = () => {
    proxy.closeAllConnections();
    proxy.close();
  };
});

afterAll(async () => {
  closeProxy();
  await db.close();
});

test('a create whose put is retried after landing makes exactly one animal', async () => {
  const pets = createPetsRepository({
    client: budgetedClient(proxyEndpoint),
    petsTableName: petsTable.name,
    countersTableName: countersTable.name,
    cursors: createCursorCodec('s'.repeat(32)),
  });
  const created = await pets.create({ name: 'Once', categoryId: 1, status: 'available' });

  const { Items } = await db.client.send(new ScanCommand({ TableName: petsTable.name, ConsistentRead: true }));
  // One item: the animal, with its status index key (at N = 1, shard 0).
  expect(Items).toEqual([{ ...created, statusShard: `${created.status}#0` }]);
});
