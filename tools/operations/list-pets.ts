// listPets' OpenAPI words and examples, and its load (index.ts).
import { API_VERSION_PATH } from '../../shared/api/routes.ts';
import { ListPetsQuery } from '../../shared/api/schemas.ts';
import { createCursorCodec } from '../../shared/domain/cursor.ts';
import { invalid, mia, rex } from '../openapi-examples.ts';
import { header, LINK_SCHEMA } from '../openapi-parts.ts';
import type { OperationFacts } from './index.ts';

/** A cursor as the service makes one (after the example page's last animal), with a secret of no stage. */
const CURSOR = createCursorCodec('an example secret, used by no stage').encode({ after: 2, status: null });

export const listPets: OperationFacts = {
  openapi: {
    description:
      'Animals ordered by id when filtered by status. When more match, the `Link` header carries `rel="next"`: ' +
      'the same listing with an opaque `cursor`, relative to the request URL. Following `next` links from the ' +
      'first page visits every matching animal once; the last page has no `next`.',
    queryExamples: { limit: 20, status: 'available', cursor: CURSOR },
    success: {
      description: 'A page of animals; `[]` when nothing matches.',
      headers: {
        Link: header(
          '`<…>; rel="next"` when more animals match.',
          `<${API_VERSION_PATH}/pets?limit=2&cursor=${CURSOR}>; rel="next"`,
          LINK_SCHEMA,
        ),
      },
      examples: {
        page: { summary: 'A page of animals', value: [rex, mia] },
        empty: { summary: 'Nothing matches', value: [] },
      },
    },
    badRequest: {
      description: 'A query parameter or the cursor is malformed or out of range.',
      examples: {
        limit: invalid('limit out of range', ListPetsQuery, { limit: '500' }, 'query'),
        status: invalid('unknown status', ListPetsQuery, { status: 'Sold' }, 'query'),
      },
    },
  },
  // One Query (byStatus) or Scan of a page and the item past it.
  load: { serviceMs: 5.3, dynamodbRequests: 1, readItems: 'page', writeUnits: 0, indexWrites: 0 },
};
