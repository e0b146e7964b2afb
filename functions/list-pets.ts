import { ListPetsQuery } from '../shared/api/schemas.ts';
import { cursorSecret } from '../shared/lambda/cursor-secret.ts';
import { json, parseQuery, versionRoot } from '../shared/lambda/http.ts';
import { httpHandler } from '../shared/lambda/middleware.ts';
import { petsRepository, useCursorSecret } from '../shared/lambda/services.ts';

export const handler = httpHandler('listPets', async (event) => {
  const { limit, status, cursor } = parseQuery(event, ListPetsQuery);
  useCursorSecret(await cursorSecret());
  const page = await petsRepository().list({ limit, status, cursor });
  if (!page.nextCursor) return json(200, page.pets);

  const next = new URLSearchParams({ limit: String(limit), ...(status && { status }), cursor: page.nextCursor });
  return json(200, page.pets, { Link: `<${versionRoot(event)}/pets?${next}>; rel="next"` });
});
