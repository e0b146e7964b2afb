// The benchmarks' floor and bare server write a new animal as the service does: the same
// conditional put (bench/floor/pet-write.ts), so that the write costs DynamoDB the same on both
// sides of a comparison. Both requests captured as the SDK sends them to dynalite.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { putNewPet } from '../../bench/floor/pet-write.ts';
import { localClientConfig } from '../../infra/local/function-environment.ts';
import { createPetsRepository } from '../../shared/dynamodb/pets-repository.ts';
import { countersTable, petsTable } from '../../shared/dynamodb/tables.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';

let db: TestDynamoDB;
beforeAll(async () => {
  db = await startTestDynamoDB();
});
afterAll(() => db?.close());

test("the floor's put is the service's create, condition and all", async () => {
  const client = DynamoDBDocumentClient.from(new DynamoDBClient(localClientConfig(db.endpoint)));
  const sent: unknown[] = [];
  client.middlewareStack.add(
    (next, context) => (args) => {
      if (context.commandName === 'PutItemCommand') sent.push(structuredClone(args.input));
      return next(args);
    },
    { step: 'initialize', name: 'capturePut' },
  );
  const pets = createPetsRepository({
    client,
    petsTableName: petsTable.name,
    countersTableName: countersTable.name,
    cursors: { encode: () => '', decode: () => ({}) as never },
  });
  const pet = await pets.create({ name: 'Floor', categoryId: 4, status: 'available' });
  // The same item again: the condition lets a retry of the very same put through.
  await client.send(putNewPet(petsTable.name, pet));
  expect(sent).toHaveLength(2);
  expect(sent[1]).toEqual(sent[0]);
  client.destroy();
});
