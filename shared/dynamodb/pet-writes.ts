// The data model's rules for writing an animal, in one place: an animal's status is written only
// together with its status index key (statusFields: a create's item and an update's SET alike,
// else the animal is listed under its old status, or under none), and every write names the
// condition it is made under (CONDITIONS: a create never overwrites another animal, an update
// never creates one). pets-repository.ts makes its writes with these builders only, and reads an
// item back into an animal with petOf.
import { type AttributeValue, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { NewPet, Pet, PetStatus } from '../api/schemas.ts';
import { statusShardKey } from './status-shards.ts';
import { STATUS_SHARD_ATTRIBUTE } from './tables.ts';

/** An animal's status and its index key, `<status>#<shard>`: never one written without the other. */
const statusFields = (status: PetStatus, id: number, shards: number) => ({
  status,
  [STATUS_SHARD_ATTRIBUTE]: statusShardKey(status, id, shards),
});

/** An animal as stored: its four fields and its status index key, at N = `shards`. */
export const petItem = (pet: Pet, shards: number) => ({ ...pet, ...statusFields(pet.status, pet.id, shards) });

/** An item's number when it is a safe integer, as unmarshall gives it; else undefined. */
const safeInteger = (value: AttributeValue | undefined) => {
  const number = value?.N === undefined ? undefined : Number(value.N);
  return Number.isSafeInteger(number) ? number : undefined;
};

/**
 * The animal an item holds: its four fields, as util-dynamodb's unmarshall reads them. An item as
 * petItem writes it (ids and categories safe integers, name and status strings) is read straight
 * from its attribute values; any other goes through unmarshall itself, so both give the same
 * animal for every item (test/unit/pet-items.test.ts). unmarshall walks every attribute with
 * Object.entries, ~1.5 KB of garbage an item and ~30 KB a listing page of 21 against ~1.4 KB,
 * a tenth of what the local stage's heap took a listing (docs/performance.md, The young generation).
 */
export const petOf = (item: Record<string, AttributeValue>): Pet => {
  const id = safeInteger(item.id);
  const categoryId = safeInteger(item.categoryId);
  const name = item.name?.S;
  const status = item.status?.S;
  if (id !== undefined && categoryId !== undefined && name !== undefined && status !== undefined)
    return { id, name, categoryId, status: status as PetStatus };
  const pet = unmarshall(item);
  return { id: pet.id, name: pet.name, categoryId: pet.categoryId, status: pet.status };
};

/** The conditions of the animals' writes, each named for what it guarantees. */
const CONDITIONS = {
  /**
   * A create never overwrites another animal; the second clause is for the SDK's retry of a put
   * whose answer timed out after it landed: that retry finds this very item and must succeed,
   * rather than make the caller create a duplicate under a new id.
   */
  newOrThisVeryAnimal: 'attribute_not_exists(id) OR (#name = :name AND categoryId = :categoryId AND #status = :status)',
  /** An update never creates: one of an id no animal has fails, rather than write a partial animal. */
  existing: 'attribute_exists(id)',
} as const;

/** The create's one write, under newOrThisVeryAnimal. */
export const putNewPet = (tableName: string, pet: Pet, shards: number): PutItemCommand =>
  new PutItemCommand({
    TableName: tableName,
    Item: marshall(petItem(pet, shards)),
    ConditionExpression: CONDITIONS.newOrThisVeryAnimal,
    ExpressionAttributeNames: { '#name': 'name', '#status': 'status' },
    ExpressionAttributeValues: marshall({ ':name': pet.name, ':categoryId': pet.categoryId, ':status': pet.status }),
  });

/**
 * An update of some of an animal's fields (at least one), under `existing`: a new status comes
 * with its index key. Answers the animal as it now is.
 */
export const updatePet = (tableName: string, id: number, changes: Partial<NewPet>, shards: number) => {
  const fields: Record<string, unknown> = {
    ...changes,
    ...(changes.status !== undefined && statusFields(changes.status, id, shards)),
  };
  const names = Object.keys(fields);
  return new UpdateItemCommand({
    TableName: tableName,
    Key: marshall({ id }),
    UpdateExpression: `SET ${names.map((_, i) => `#f${i} = :f${i}`).join(', ')}`,
    ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#f${i}`, name])),
    ExpressionAttributeValues: marshall(Object.fromEntries(names.map((name, i) => [`:f${i}`, fields[name]]))),
    ConditionExpression: CONDITIONS.existing,
    ReturnValues: 'ALL_NEW',
  });
};
