// Following a listing's cursors through a pets repository, as a client follows `Link: rel="next"`.
import type { PetStatus } from '../../shared/api/schemas.ts';
import type { ListPage, PetsRepository } from '../../shared/domain/stores.ts';

/** Every page of a listing, from the first to the last; throws past `maxPages` (paging that never ends). */
export const allPages = async (
  pets: PetsRepository,
  limit: number,
  status?: PetStatus,
  maxPages = 10_000,
): Promise<ListPage[]> => {
  const pages: ListPage[] = [];
  let cursor: string | undefined;
  do {
    const page = await pets.list({ limit, status, cursor });
    pages.push(page);
    cursor = page.nextCursor;
    if (pages.length > maxPages) throw new Error('paging does not end');
  } while (cursor);
  return pages;
};
