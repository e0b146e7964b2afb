// A put that lands but whose answer is lost (slower than the SDK's request timeout):
// the SDK retries it, the retry finds the item already there, and the create must
// still make exactly one animal, not a second one under a new id.
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createCursorCodec } from '../../shared/domain/cursor.ts';
import { createPetsRepository } from '../../shared/dynamodb/pets-repository.ts';
import { countersTable, petsTable } from '../../shared/dynamodb/tables.ts';
import { budgetedPlainClient, startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { type LostAnswerProxy, startLostAnswerProxy } from '../support/lost-answer-proxy.ts';

let db: TestDynamoDB;
let proxy: LostAnswerProxy;

beforeAll(async () => {
  db = await startTestDynamoDB();
  proxy = await startLostAnswerProxy(db.endpoint, 'PutItem');
});

afterAll(async () => {
  proxy.close();
  await db.close();
});

test('a create whose put is retried after landing makes exactly one animal', async () => {
  const pets = createPetsRepository({
    client: budgetedPlainClient(proxy.endpoint),
    petsTableName: petsTable.name,
    countersTableName: countersTable.name,
    cursors: createCursorCodec('s'.repeat(32)),
  });
  const created = await pets.create({ name: 'Once', categoryId: 1, status: 'available' });

  const { Items } = await db.client.send(new ScanCommand({ TableName: petsTable.name, ConsistentRead: true }));
  // One item: the animal, with its status index key (at N = 1, shard 0).
  expect(Items).toEqual([{ ...created, statusShard: `${created.status}#0` }]);
});
