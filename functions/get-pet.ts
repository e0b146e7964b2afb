// Deprecated: the Deprecation, Sunset and successor Link headers and the per-key
// call count come from the route table's `deprecation` (shared/lambda/middleware.ts).
import { NotFoundError } from '../shared/api/errors.ts';
import { PetIdParams } from '../shared/api/schemas.ts';
import { json, parsePathParameters } from '../shared/lambda/http.ts';
import { httpHandler } from '../shared/lambda/middleware.ts';
import { petsRepository } from '../shared/lambda/services.ts';

export const handler = httpHandler('getPet', async (event) => {
  const { petId } = parsePathParameters(event, PetIdParams);
  const pet = await petsRepository().get(petId);
  if (!pet) throw new NotFoundError(`no animal has id ${petId}`);
  return json(200, pet);
});
