// `npm start` with one bug planted, for the on-call drill (test/e2e/on-call-drill.test.ts): the
// real server, whose listPets then fails on a filtered listing's follow-up pages (a status and a
// cursor) with the TypeError a paging bug would throw, inside the function, as a bug of ours
// would. Every other request is served as usual. Run as the server's entry, with its flags.
import type { PetsRepository } from '../../shared/domain/stores.ts';

type ListRequest = Parameters<PetsRepository['list']>[0];

// The server's own start: once it resolves, the stage is up and the functions' environment set.
await import('../../infra/local/server.ts');
const { petsRepository } = await import('../../shared/lambda/services.ts');

const pets = petsRepository();
const list = pets.list.bind(pets);
pets.list = async (request: ListRequest) => {
  const page = await list(request);
  // The bug: a follow-up page of a filtered listing reads a field its page does not have.
  if (request.cursor !== undefined && request.status !== undefined)
    return (page as unknown as { previous: typeof page }).previous.pets as never;
  return page;
};
