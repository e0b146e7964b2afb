// All DynamoDB access for animals. Items hold exactly the four Animal fields.

import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Pet, PetStatus } from '../api/schemas.ts';
import type { CursorCodec } from '../domain/cursor.ts';
import { createIdAllocator, type IdAllocator } from '../domain/id-allocator.ts';
import type { PetsRepository } from '../domain/stores.ts';
import { withAvailability } from './client.ts';
import { STATUS_INDEX } from './tables.ts';

export interface PetsRepositoryOptions {
  client: DynamoDBDocumentClient;
  petsTableName: string;
  countersTableName: string;
  cursors: CursorCodec;
  ids?: IdAllocator;
}

const PET_ID_COUNTER = 'petId';
/** A put that finds its id taken means the counter went back (a restored table): skip ahead. */
const MAX_CREATE_ATTEMPTS = 5;

/**
 * The create's one write. It never overwrites another animal; the second clause is for the
 * SDK's retry of a put whose answer timed out after it landed: that retry finds this very
 * item and must succeed, rather than make the caller create a duplicate under a new id.
 */
const putNewPet = (tableName: string, pet: Pet): PutCommand =>
  new PutCommand({
    TableName: tableName,
    Item: pet,
    ConditionExpression:
      'attribute_not_exists(id) OR (#name = :name AND categoryId = :categoryId AND #status = :status)',
    ExpressionAttributeNames: { '#name': 'name', '#status': 'status' },
    ExpressionAttributeValues: { ':name': pet.name, ':categoryId': pet.categoryId, ':status': pet.status },
  });

const toPet = (item: Record<string, unknown>): Pet => ({
  id: item.id as number,
  name: item.name as string,
  categoryId: item.categoryId as number,
  status: item.status as PetStatus,
});

export const createPetsRepository = (options: PetsRepositoryOptions): PetsRepository => {
  const { client, petsTableName, countersTableName, cursors } = options;

  const ids =
    options.ids ??
    createIdAllocator(async (size) => {
      const { Attributes } = await withAvailability(() =>
        client.send(
          new UpdateCommand({
            TableName: countersTableName,
            Key: { counter: PET_ID_COUNTER },
            UpdateExpression: 'ADD #value :size',
            ExpressionAttributeNames: { '#value': 'value' },
            ExpressionAttributeValues: { ':size': size },
            ReturnValues: 'UPDATED_NEW',
          }),
        ),
      );
      return Attributes?.value as number;
    });

  return {
    newId: () => ids.next(),

    async create(newPet, id) {
      if (id !== undefined) {
        // The id was chosen before (an idempotency record names it): another animal under it
        // (a table restored behind the counter) must fail the create, never be overwritten.
        const pet: Pet = { id, ...newPet };
        await withAvailability(() => client.send(putNewPet(petsTableName, pet)));
        return pet;
      }
      for (let attempt = 1; ; attempt++) {
        const pet: Pet = { id: await ids.next(), ...newPet };
        try {
          await withAvailability(() => client.send(putNewPet(petsTableName, pet)));
          return pet;
        } catch (error) {
          if (!(error instanceof ConditionalCheckFailedException) || attempt === MAX_CREATE_ATTEMPTS) throw error;
        }
      }
    },

    async get(id) {
      const { Item } = await withAvailability(() =>
        client.send(new GetCommand({ TableName: petsTableName, Key: { id } })),
      );
      return Item ? toPet(Item) : undefined;
    },

    // One extra item tells whether another page exists, so the last page never
    // carries a `next` link to an empty page, still in a single request.
    async list({ limit, status, cursor }) {
      const after = cursor === undefined ? undefined : cursors.decode(cursor, status).after;
      const common = { TableName: petsTableName, Limit: limit + 1 };
      const { Items = [], LastEvaluatedKey } = await withAvailability(() =>
        client.send(
          status === undefined
            ? new ScanCommand({ ...common, ExclusiveStartKey: after === undefined ? undefined : { id: after } })
            : new QueryCommand({
                ...common,
                IndexName: STATUS_INDEX,
                KeyConditionExpression: '#status = :status',
                ExpressionAttributeNames: { '#status': 'status' },
                ExpressionAttributeValues: { ':status': status },
                ExclusiveStartKey: after === undefined ? undefined : { status, id: after },
              }),
        ),
      );
      const pets = Items.slice(0, limit).map(toPet);
      // More match when the extra item came back, or when DynamoDB stopped early at its 1 MB page size.
      const more = Items.length > limit || LastEvaluatedKey !== undefined;
      const last = pets.at(-1);
      return more && last ? { pets, nextCursor: cursors.encode({ after: last.id, status: status ?? null }) } : { pets };
    },
  };
};
