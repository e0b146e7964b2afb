// The client's example (client/README.md), run by test/e2e/client.test.ts against the local stage:
// PETSTORE_BASE_URL=http://127.0.0.1:3000/v1 PETSTORE_KEY=pet_… npx node client/example.ts
import { createPetStoreClient, listPetPages, PetStoreError } from './index.ts';

// `npm start` prints the local base address (ending in /v1) and a key.
const { PETSTORE_BASE_URL: baseUrl, PETSTORE_KEY: apiKey } = process.env;
if (!baseUrl || !apiKey) throw new Error('set PETSTORE_BASE_URL (as npm start prints it, with /v1) and PETSTORE_KEY');
const client = createPetStoreClient({ baseUrl, apiKey });

// createPet: `data` is a Pet when the answer is 201, `error` the Error body otherwise.
const { data: rex, error } = await client.POST('/pets', { body: { name: 'Rex', categoryId: 3 } });
if (error) throw new Error(`${error.code}: ${error.message} (requestId ${error.requestId})`);
console.log(`created: id ${rex.id}, status ${rex.status}`); // status defaults to "available"

// A safe retry: the same Idempotency-Key and body creates nothing more and answers the first 201
// again (with `Idempotent-Replayed: true`); the same key with another body is a 422 (docs/api.md).
const retryKey = crypto.randomUUID(); // one per animal you mean to add, kept for its retries
const once = { name: 'Mia', categoryId: 7 };
const first = await client.POST('/pets', { params: { header: { 'Idempotency-Key': retryKey } }, body: once });
const retry = await client.POST('/pets', { params: { header: { 'Idempotency-Key': retryKey } }, body: once });
console.log(
  `retried with the same Idempotency-Key: same animal ${first.data?.id === retry.data?.id}, ` +
    `Idempotent-Replayed: ${retry.response.headers.get('idempotent-replayed')}`,
); // same animal true, Idempotent-Replayed: true

// listPets, every page: follows `Link: <…>; rel="next"` until the last page.
try {
  for await (const page of listPetPages(client, { status: 'available', limit: 50 })) {
    console.log(`listed (available, a page): ${page.map((pet) => `${pet.id} ${pet.name}`).join(', ')}`);
  }
} catch (failure) {
  if (failure instanceof PetStoreError) console.error(failure.body.code, failure.body.requestId);
  else throw failure;
}

// getPet (deprecated: use the listing with `status`): path parameters are typed too.
const { data: again, response } = await client.GET('/pets/{petId}', { params: { path: { petId: rex.id } } });
console.log(`got id ${rex.id} (deprecated): ${again?.name}, Sunset: ${response.headers.get('sunset')}`);
