// An item read back into an animal (shared/dynamodb/pet-writes.ts's petOf) gives what
// util-dynamodb's unmarshall gives, the library it stands in for: for every animal the service
// can write, at any number of index shards, and for items it never writes.
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { MAX_ID, NAME_MAX_LENGTH, type Pet, PetStatus } from '../../shared/api/schemas.ts';
import { petItem, petOf } from '../../shared/dynamodb/pet-writes.ts';

/** The animal's four fields as the library reads the item. */
const byTheLibrary = (item: Record<string, AttributeValue>) => {
  const { id, name, categoryId, status } = unmarshall(item);
  return { id, name, categoryId, status };
};

const animal: fc.Arbitrary<Pet> = fc.record({
  id: fc.integer({ min: 1, max: MAX_ID }),
  name: fc.string({ unit: 'binary', minLength: 1, maxLength: NAME_MAX_LENGTH }),
  categoryId: fc.integer({ min: 1, max: MAX_ID }),
  status: fc.constantFrom(...PetStatus.options),
});

test('every animal the service writes reads back as the library reads it, and as it was written', () => {
  fc.assert(
    fc.property(animal, fc.integer({ min: 1, max: 16 }), (pet, shards) => {
      const item = marshall(petItem(pet, shards));
      expect(petOf(item)).toStrictEqual(byTheLibrary(item));
      expect(petOf(item)).toStrictEqual({ ...pet }); // fast-check's records have no prototype
    }),
  );
});

test('an item the service never writes reads as the library reads it', () => {
  const written = marshall(petItem({ id: 7, name: 'Rex', categoryId: 3, status: 'sold' }, 1));
  const odd: Record<string, AttributeValue>[] = [
    { ...written, id: { S: '7' } }, // a number stored as a string
    { ...written, categoryId: { N: '1.5' } }, // not an integer
    { ...written, id: { N: '9007199254740993' } }, // past a double's integers: the library's BigInt
    { ...written, name: { N: '12' } },
    { ...written, status: { NULL: true } },
    { id: written.id!, name: written.name! }, // fields missing
    { ...written, extra: { M: { nested: { L: [{ S: 'x' }] } } } },
  ];
  for (const item of odd) expect(petOf(item), JSON.stringify(item)).toStrictEqual(byTheLibrary(item));
});
