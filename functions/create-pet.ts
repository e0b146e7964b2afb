import { NewPet } from '../shared/api/schemas.ts';
import { json, parseJsonBody, versionRoot } from '../shared/lambda/http.ts';
import { idempotently } from '../shared/lambda/idempotency.ts';
import { httpHandler } from '../shared/lambda/middleware.ts';
import { petsRepository } from '../shared/lambda/services.ts';

export const handler = httpHandler('createPet', async (event, context) => {
  const newPet = parseJsonBody(event, NewPet);
  return idempotently(event, context, async () => {
    const pet = await petsRepository().create(newPet);
    return json(201, pet, { Location: `${versionRoot(event)}/pets/${pet.id}` });
  });
});
