import { json, parseJsonBody, versionRoot } from '../shared/http.ts';
import { httpHandler } from '../shared/middleware.ts';
import { NewPet } from '../shared/schemas.ts';
import { petsRepository } from '../shared/services.ts';

export const handler = httpHandler('createPet', async (event) => {
  const newPet = parseJsonBody(event, NewPet);
  const pet = await petsRepository().create(newPet);
  return json(201, pet, { Location: `${versionRoot(event)}/pets/${pet.id}` });
});
