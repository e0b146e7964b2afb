// All DynamoDB access for animals. Items hold the four Animal fields and their status index key.
// The plain client's commands, the items marshalled here with util-dynamodb (what lib-dynamodb's
// commands do for the other repositories): on the client with the SDK's handler cache (client.ts).

import {
  type AttributeValue,
  ConditionalCheckFailedException,
  type DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  ScanCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { Pet, PetStatus } from '../api/schemas.ts';
import type { CursorCodec } from '../domain/cursor.ts';
import { createIdAllocator, type IdAllocator } from '../domain/id-allocator.ts';
import type { PetsRepository } from '../domain/stores.ts';
import { withAvailability } from './availability.ts';
import { petOf, putNewPet, updatePet } from './pet-writes.ts';
import { createShardCount } from './shard-count.ts';
import { statusShardKeys } from './status-shards.ts';
import { STATUS_INDEX, STATUS_SHARD_ATTRIBUTE } from './tables.ts';

export interface PetsRepositoryOptions {
  /** Made by createDynamoDBClient (client.ts), or any plain client. */
  client: DynamoDBClient;
  petsTableName: string;
  countersTableName: string;
  cursors: CursorCodec;
  ids?: IdAllocator;
  /** N of the status index (status-shards.ts); 1 by default. Reads cover at least the most any writer used (shard-count.ts). */
  statusShards?: number;
  /** Told when a listing's best-effort re-read of the shard record failed (shard-count.ts). */
  onShardRefreshFailure?: (error: unknown) => void;
}

const PET_ID_COUNTER = 'petId';
/** A put that finds its id taken means the counter went back (a restored table): skip ahead. */
const MAX_CREATE_ATTEMPTS = 5;

export const createPetsRepository = (options: PetsRepositoryOptions): PetsRepository => {
  const { client, petsTableName, countersTableName, cursors } = options;
  const shards = options.statusShards ?? 1;
  const shardCount = createShardCount(client, countersTableName, shards, options.onShardRefreshFailure);

  const ids =
    options.ids ??
    createIdAllocator(async (size) => {
      const { Attributes } = await withAvailability(() =>
        client.send(
          new UpdateItemCommand({
            TableName: countersTableName,
            Key: marshall({ counter: PET_ID_COUNTER }),
            UpdateExpression: 'ADD #value :size',
            ExpressionAttributeNames: { '#value': 'value' },
            ExpressionAttributeValues: marshall({ ':size': size }),
            ReturnValues: 'UPDATED_NEW',
          }),
        ),
      );
      return (Attributes && unmarshall(Attributes).value) as number;
    });

  return {
    newId: () => ids.next(),

    async create(newPet, id) {
      // Readers learn of a shard before any animal is on it (shard-count.ts).
      await shardCount.raise();
      if (id !== undefined) {
        // The id was chosen before (an idempotency record names it): another animal under it
        // (a table restored behind the counter) must fail the create, never be overwritten.
        const pet: Pet = { id, ...newPet };
        await withAvailability(() => client.send(putNewPet(petsTableName, pet, shards)));
        return pet;
      }
      for (let attempt = 1; ; attempt++) {
        const pet: Pet = { id: await ids.next(), ...newPet };
        try {
          await withAvailability(() => client.send(putNewPet(petsTableName, pet, shards)));
          return pet;
        } catch (error) {
          if (!(error instanceof ConditionalCheckFailedException) || attempt === MAX_CREATE_ATTEMPTS) throw error;
        }
      }
    },

    get,

    async update(id, changes) {
      if (Object.keys(changes).length === 0) return get(id);
      // A new status is a new index key, on a shard readers must know first (shard-count.ts).
      if (changes.status !== undefined) await shardCount.raise();
      try {
        const { Attributes } = await withAvailability(() => client.send(updatePet(petsTableName, id, changes, shards)));
        return Attributes && petOf(Attributes);
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return undefined;
        throw error;
      }
    },

    // One extra item tells whether another page exists, so the last page never
    // carries a `next` link to an empty page, still in a single request per shard.
    async list({ limit, status, cursor }) {
      const after = cursor === undefined ? undefined : cursors.decode(cursor, status).after;
      const common = { TableName: petsTableName, Limit: limit + 1 };
      if (status === undefined) {
        // A Scan's order is the table's own, which resumes after `after`: no merge.
        const { Items = [], LastEvaluatedKey } = await withAvailability(() =>
          client.send(
            new ScanCommand({ ...common, ...(after !== undefined && { ExclusiveStartKey: marshall({ id: after }) }) }),
          ),
        );
        const pets = Items.slice(0, limit).map(petOf);
        // More match when the extra item came back, or when DynamoDB stopped early at its 1 MB page size.
        return pageOf(pets, Items.length > limit || LastEvaluatedKey !== undefined, null);
      }
      // Every shard, each from just after the cursor, in parallel: a page waits for the slowest one.
      // The shards any writer used (shard-count.ts), none of them still asked once this answers.
      const shardPages = await shardCount.cover((from, to) =>
        statusShardKeys(status, to)
          .slice(from)
          .map((key) =>
            withAvailability(() =>
              client.send(
                new QueryCommand({
                  ...common,
                  IndexName: STATUS_INDEX,
                  KeyConditionExpression: '#shard = :shard',
                  ExpressionAttributeNames: { '#shard': STATUS_SHARD_ATTRIBUTE },
                  ExpressionAttributeValues: marshall({ ':shard': key }),
                  ...(after !== undefined && {
                    ExclusiveStartKey: marshall({ [STATUS_SHARD_ATTRIBUTE]: key, id: after }),
                  }),
                }),
              ),
            ),
          ),
      );
      return merged(shardPages, limit, status);
    },
  };

  async function get(id: number) {
    const { Item } = await withAvailability(() =>
      client.send(new GetItemCommand({ TableName: petsTableName, Key: marshall({ id }) })),
    );
    return Item ? petOf(Item) : undefined;
  }

  function pageOf(pets: Pet[], more: boolean, status: PetStatus | null) {
    const last = pets.at(-1);
    return more && last ? { pets, nextCursor: cursors.encode({ after: last.id, status }) } : { pets };
  }

  /**
   * Merges the shards' answers by id. A shard that has more (it reached its Limit or
   * DynamoDB's 1 MB) says nothing about ids past its last one, so nothing past the smallest
   * such id is kept: no animal of a slower shard is skipped.
   */
  function merged(
    shardPages: readonly {
      Items?: Record<string, AttributeValue>[];
      LastEvaluatedKey?: Record<string, AttributeValue>;
    }[],
    limit: number,
    status: PetStatus,
  ) {
    const pages = shardPages.map(({ Items = [], LastEvaluatedKey }) => ({ pets: Items.map(petOf), LastEvaluatedKey }));
    let cut = Number.POSITIVE_INFINITY;
    for (const { pets, LastEvaluatedKey } of pages) {
      if (LastEvaluatedKey) cut = Math.min(cut, pets.at(-1)?.id ?? (unmarshall(LastEvaluatedKey).id as number));
    }
    const all = pages.flatMap(({ pets }) => pets).sort((a, b) => a.id - b.id);
    const pets = all.filter((pet) => pet.id <= cut).slice(0, limit);
    // More match when an item was left out, or when a shard stopped early at DynamoDB's 1 MB page size.
    return pageOf(pets, all.length > pets.length || cut !== Number.POSITIVE_INFINITY, status);
  }
};
