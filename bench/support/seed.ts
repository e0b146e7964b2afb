// Seeding at the data layer: BatchWrite straight into the embedded DynamoDB, many
// batches in flight, so that 100,000 animals take seconds rather than minutes.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, type BatchWriteCommandInput, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { localClientConfig } from '../../infra/local/function-environment.ts';
import { type Pet, PetStatus } from '../../shared/api/schemas.ts';
import { petItem } from '../../shared/dynamodb/pet-writes.ts';
import { petsTable } from '../../shared/dynamodb/tables.ts';
import { inParallel } from '../../tools/harness/http-client.ts';

/** Seeded ids live far above the ids the service hands out, so creates never collide with them. */
export const SEED_FIRST_ID = 1_000_000_000;
export const STATUSES = PetStatus.options;
const BATCH_SIZE = 25; // DynamoDB's BatchWriteItem limit

/** As the service writes it at `shards` index shards (`npm start`'s default: 1): with its status index key. */
const seededPet = (index: number, shards: number) => {
  const id = SEED_FIRST_ID + index;
  const pet: Pet = { id, name: `Seeded animal ${index}`, categoryId: (index % 50) + 1, status: STATUSES[index % 3]! };
  return petItem(pet, shards);
};

/** Writes `count` seeded animals, 16 batches in flight; resolves to the milliseconds it took. */
export const seedPets = async (endpoint: string, count: number, shards = 1): Promise<number> => {
  const client = DynamoDBDocumentClient.from(new DynamoDBClient(localClientConfig(endpoint)));
  const started = performance.now();
  try {
    await inParallel(Math.ceil(count / BATCH_SIZE), 16, async (batch) => {
      const first = batch * BATCH_SIZE;
      const indexes = Array.from({ length: Math.min(BATCH_SIZE, count - first) }, (_, i) => first + i);
      let requests: BatchWriteCommandInput['RequestItems'] = {
        [petsTable.name]: indexes.map((index) => ({ PutRequest: { Item: seededPet(index, shards) } })),
      };
      // What DynamoDB left unprocessed, again until none is left.
      while (requests && Object.keys(requests).length > 0)
        requests = (await client.send(new BatchWriteCommand({ RequestItems: requests }))).UnprocessedItems;
    });
  } finally {
    client.destroy();
  }
  return performance.now() - started;
};
