import { NewPet } from '../shared/api/schemas.ts';
import { json, parseJsonBody, versionRoot } from '../shared/lambda/http.ts';
import { httpHandler } from '../shared/lambda/middleware.ts';
import { petsRepository } from '../shared/lambda/services.ts';

export const handler = httpHandler('createPet', async (event) => {
  const newPet = parseJsonBody(event, NewPet);
  const pet = await petsRepository().create(newPet);
  return json(201, pet, { Location: `${versionRoot(event)}/pets/${pet.id}` });
});
