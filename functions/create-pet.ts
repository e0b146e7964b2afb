import { NewPet, type Pet } from '../shared/api/schemas.ts';
import { json, parseJsonBody, versionRoot } from '../shared/lambda/http.ts';
import { idempotently } from '../shared/lambda/idempotency.ts';
import { httpHandler } from '../shared/lambda/middleware.ts';
import { petsRepository } from '../shared/lambda/services.ts';

export const handler = httpHandler('createPet', async (event, context) => {
  const { data: newPet, json: body } = parseJsonBody(event, NewPet);
  const pets = petsRepository();
  const created = (pet: Pet) => json(201, pet, { Location: `${versionRoot(event)}/pets/${pet.id}` });
  // With an Idempotency-Key the id is chosen first, so that a retry finds the animal by it.
  return idempotently(event, context, body, {
    create: async () => created(await pets.create(newPet)),
    newId: () => pets.newId(),
    createAs: async (id) => created(await pets.create(newPet, id)),
    find: async (id) => {
      const pet = await pets.get(id);
      return pet && created(pet);
    },
  });
});
