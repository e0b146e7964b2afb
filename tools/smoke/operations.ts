// What the smoke suite checks of each operation beyond its generic checks (the generic ones come
// from the route entry and its samples: checks.ts runs them): a `Record` of every operation, so
// that a new one without smoke checks is a type error. A read operation needs a read-only check
// (the canary runs only those); a write operation a write-mode one.
import { links } from '../../client/index.ts';
import { type OperationId, type ReadOperationId, route } from '../../shared/api/routes.ts';
import { deprecationProblems } from '../../shared/release-checks/generic.ts';
import { isObject, type Probe, type Reply } from './probe.ts';

const STATUSES = ['available', 'pending', 'sold'] as const;

export interface Animal {
  id: number;
  name: string;
  categoryId: number;
  status: string;
}

export const isAnimal = (value: unknown): value is Animal =>
  isObject(value) &&
  Object.keys(value).sort().join() === 'categoryId,id,name,status' &&
  Number.isSafeInteger(value.id) &&
  typeof value.name === 'string' &&
  Number.isSafeInteger(value.categoryId) &&
  STATUSES.includes(value.status as (typeof STATUSES)[number]);

/** What earlier checks learned: the animals the listing showed (and, writing, the one made). */
export interface State {
  animals: Animal[];
  created?: Animal;
  /** The key turned out to have scope `read` (403 on a write operation). */
  readKey?: boolean;
}

export type Check = (probe: Probe, state: State) => Promise<undefined | { skipped: string }>;
type Named = readonly [name: string, check: Check];

/** `read`: run in both modes; `write`: only in write mode, before every other check. */
type OperationSmoke<Id extends OperationId> = Id extends ReadOperationId
  ? { readonly read: readonly [Named, ...Named[]]; readonly write?: readonly Named[] }
  : { readonly read?: readonly Named[]; readonly write: readonly [Named, ...Named[]] };

const expectAnimals = (probe: Probe, reply: Reply): Animal[] => {
  probe.expect(reply, 'listing', reply.status === 200, `status ${reply.status}`);
  const body = reply.body;
  probe.expect(reply, 'listing', Array.isArray(body), 'body is not an array');
  const bad = (body as unknown[]).find((item) => !isAnimal(item));
  probe.expect(reply, 'listing', bad === undefined, `not an Animal: ${JSON.stringify(bad)}`);
  return body as Animal[];
};

const nextLink = (reply: Reply): URL | undefined => links(reply.headers.get('link'), reply.url).get('next');

const listing: Check = async (probe, state) => {
  const reply = await probe.send('/pets?limit=100');
  state.animals = expectAnimals(probe, reply);
  if (state.animals.length < 100) probe.expect(reply, 'paging', !nextLink(reply), 'a next link on the last page');
};

const badQuery: Check = async (probe) => {
  for (const query of ['status=AVAILABLE', 'cursor=not-a-cursor'])
    probe.expectError(await probe.send(`/pets?${query}`), 'badQuery', 400, 'BAD_REQUEST');
};

const statusFilter: Check = async (probe, state) => {
  for (const status of STATUSES) {
    const reply = await probe.send(`/pets?status=${status}&limit=100`);
    const other = expectAnimals(probe, reply).find((animal) => animal.status !== status);
    probe.expect(reply, 'statusFilter', !other, `asked for ${status}, got ${JSON.stringify(other)}`);
    // A listing of fewer than 100 is every animal: the filter must find exactly its own.
    if (state.animals.length < 100) {
      const want = state.animals.filter((animal) => animal.status === status).map((animal) => animal.id);
      const got = (reply.body as Animal[]).map((animal) => animal.id);
      probe.expect(
        reply,
        'statusFilter',
        got.sort().join() === want.sort().join(),
        `${status}: ids ${got.join(',') || 'none'}, the listing has ${want.join(',') || 'none'}`,
      );
    }
  }
};

const paging: Check = async (probe, state) => {
  if (state.animals.length < 2) return { skipped: 'fewer than two animals on the stage' };
  const seen = new Set<number>();
  let path: string | undefined = '/pets?limit=1';
  for (let page = 0; path && page < 3; page++) {
    const reply = await probe.send(path);
    const [animal, ...more] = expectAnimals(probe, reply);
    probe.expect(reply, 'paging', animal !== undefined && more.length === 0, 'limit=1 gave not one animal');
    probe.expect(reply, 'paging', !seen.has(animal!.id), `animal ${animal!.id} again on a later page`);
    seen.add(animal!.id);
    const next = nextLink(reply);
    if (seen.size < state.animals.length)
      probe.expect(reply, 'paging', next !== undefined, 'no Link rel="next" though more animals match');
    probe.expect(
      reply,
      'paging',
      !next || next.searchParams.has('cursor'),
      `next link without a cursor: ${String(next)}`,
    );
    path = next?.href;
  }
};

const getPet: Check = async (probe, state) => {
  const known = state.created ?? state.animals[0];
  if (!known) return { skipped: 'no animal on the stage' };
  const found = await probe.send(`/pets/${known.id}`);
  probe.expect(
    found,
    'getPet',
    found.status === 200 && JSON.stringify(found.body) === JSON.stringify(known),
    `got ${found.status} ${JSON.stringify(found.body)}, expected ${JSON.stringify(known)}`,
  );
  const problems = deprecationProblems(route('getPet'), {
    ...found,
    header: (name) => found.headers.get(name) ?? undefined,
  });
  probe.expect(found, 'deprecation', problems.length === 0, problems.join('; '));
};

const createPet: Check = async (probe, state) => {
  const idempotencyKey = `smoke-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const create = (body: object) =>
    probe.send('/pets', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
      body: JSON.stringify(body),
    });
  const body = { name: 'Smoke test', categoryId: 1 };
  const first = await create(body);
  const animal = first.body as Animal;
  probe.expect(
    first,
    'create',
    first.status === 201 && isAnimal(animal) && animal.status === 'available' && animal.name === body.name,
    `got ${first.status} ${JSON.stringify(animal)}`,
  );
  const location = first.headers.get('location') ?? '';
  probe.expect(first, 'create', location.endsWith(`/pets/${animal.id}`), `Location: ${location}`);
  state.created = animal;
  const again = await create(body);
  probe.expect(
    again,
    'replay',
    again.status === 201 && again.headers.get('idempotent-replayed') === 'true',
    `got ${again.status}, Idempotent-Replayed: ${again.headers.get('idempotent-replayed')}`,
  );
  probe.expect(
    again,
    'replay',
    JSON.stringify(again.body) === JSON.stringify(animal) && again.headers.get('location') === location,
    `replayed ${JSON.stringify(again.body)}, Location ${again.headers.get('location')}`,
  );
  probe.expectError(
    await create({ ...body, name: 'Another name' }),
    'idempotencyMismatch',
    422,
    'UNPROCESSABLE_ENTITY',
  );
  // A second animal, so that paging has two pages to follow on an empty stage.
  const second = await probe.send('/pets', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Smoke test', categoryId: 1, status: 'sold' }),
  });
  probe.expect(second, 'create', second.status === 201 && isAnimal(second.body), `got ${second.status}`);
};

const operationChecks: { readonly [Id in OperationId]: OperationSmoke<Id> } = {
  listPets: {
    read: [
      ['listPets: shape, and no next link on the last page', listing],
      ['listPets: 400 for an unknown status and a forged cursor', badQuery],
      ['listPets: the status filter', statusFilter],
      ['listPets: Link paging', paging],
    ],
  },
  getPet: { read: [['getPet: 200 with the animal, deprecated', getPet]] },
  createPet: { write: [['createPet: 201, its replay and 422 with an Idempotency-Key', createPet]] },
};

/** An operation's own checks, read and write. */
export const ownChecks = (id: OperationId): { read?: readonly Named[]; write?: readonly Named[] } =>
  operationChecks[id];
