// The smoke checks: every rule of docs/api.md a client relies on, checked from outside
// against a running stage. Read-only mode sends nothing that could create an animal or a
// key (only creates the contract refuses before storing anything), so it is safe against
// production and is what the Synthetics canary runs.
import { links } from '../../client/index.ts';
import { Broken, isObject, Probe, type ProbeOptions, type Reply, RULES, type Rule, type Violation } from './probe.ts';

const STATUSES = ['available', 'pending', 'sold'] as const;
/** The Sunset date docs/api.md fixes for getPet. */
const SUNSET = 'Thu, 05 Dec 2030 00:00:00 GMT';
/** 2^53−1: a valid id that no stage reaches. */
const UNUSED_ID = 9007199254740991;

export interface SmokeOptions extends ProbeOptions {
  /** Create nothing: no animal, no key. Always so against production. */
  readonly readOnly: boolean;
}

export interface CheckResult {
  readonly name: string;
  readonly outcome: 'passed' | 'failed' | 'skipped';
  /** Why it was skipped, or what broke. */
  readonly note?: string;
  readonly violation?: Violation;
}

interface Animal {
  id: number;
  name: string;
  categoryId: number;
  status: string;
}

const isAnimal = (value: unknown): value is Animal =>
  isObject(value) &&
  Object.keys(value).sort().join() === 'categoryId,id,name,status' &&
  Number.isSafeInteger(value.id) &&
  typeof value.name === 'string' &&
  Number.isSafeInteger(value.categoryId) &&
  STATUSES.includes(value.status as (typeof STATUSES)[number]);

/** A key in the right format that the service never issued. */
const unknownKey = (): string => {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const bytes = crypto.getRandomValues(new Uint8Array(40));
  return `pet_${Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('')}`;
};

type Skip = { skipped: string };
type Check = (probe: Probe, state: State) => Promise<undefined | Skip>;

/** What earlier checks learned: the animals the listing showed (and, writing, the one made). */
interface State {
  animals: Animal[];
  created?: Animal;
  /** The key turned out to have scope `read` (403 on POST /pets). */
  readKey?: boolean;
}

const unauthorized =
  (rule: Rule, authorization: string | null): Check =>
  async (probe) => {
    const reply = await probe.send('/pets', { authorization });
    probe.expectError(reply, rule, 401, 'UNAUTHORIZED');
    const challenge = reply.headers.get('www-authenticate') ?? '';
    probe.expect(reply, rule, /^bearer\b/i.test(challenge), `WWW-Authenticate is "${challenge}"`);
  };

const expectAnimals = (probe: Probe, reply: Reply): Animal[] => {
  probe.expect(reply, 'listing', reply.status === 200, `status ${reply.status}`);
  const body = reply.body;
  probe.expect(reply, 'listing', Array.isArray(body), 'body is not an array');
  const bad = (body as unknown[]).find((item) => !isAnimal(item));
  probe.expect(reply, 'listing', bad === undefined, `not an Animal: ${JSON.stringify(bad)}`);
  return body as Animal[];
};

const nextLink = (reply: Reply): URL | undefined => links(reply.headers.get('link'), reply.url).get('next');

/** Creates and bad creates: a read key is refused before its body is read. */
const badCreate =
  (rule: Rule, status: number, code: string, contentType: string, body: string): Check =>
  async (probe, state) => {
    const reply = await probe.send('/pets', { method: 'POST', headers: { 'content-type': contentType }, body });
    if (reply.status === 403 && state.readKey !== false) {
      probe.expectError(reply, 'readKeyForbidden', 403, 'FORBIDDEN');
      state.readKey = true;
      return {
        skipped: `the key has scope read: 403 FORBIDDEN as docs/api.md says; "${RULES[rule]}" needs a write key`,
      };
    }
    probe.expectError(reply, rule, status, code);
    state.readKey = false;
    if (rule === 'badCreate')
      probe.expect(reply, rule, Array.isArray((reply.body as { details?: unknown }).details), 'no details');
  };

const readChecks: [string, Check][] = [
  ['401 without a key', unauthorized('missingKey', null)],
  ['401 with a malformed Authorization header', unauthorized('malformedKey', 'Basic cGV0OnN0b3Jl')],
  ['401 with an unknown key', unauthorized('unknownKey', `Bearer ${unknownKey()}`)],
  [
    '404 for an unknown path',
    async (probe) => {
      probe.expectError(await probe.send('/no-such-resource'), 'unknownPath', 404, 'NOT_FOUND');
    },
  ],
  [
    '404 for an unknown method',
    async (probe) => {
      probe.expectError(await probe.send('/pets', { method: 'DELETE' }), 'unknownMethod', 404, 'NOT_FOUND');
    },
  ],
  [
    'listPets: shape, and no next link on the last page',
    async (probe, state) => {
      const reply = await probe.send('/pets?limit=100');
      state.animals = expectAnimals(probe, reply);
      if (state.animals.length < 100) probe.expect(reply, 'paging', !nextLink(reply), 'a next link on the last page');
    },
  ],
  [
    'listPets: 400 for limit=0, an unknown status and a forged cursor',
    async (probe) => {
      for (const query of ['limit=0', 'status=AVAILABLE', 'cursor=not-a-cursor'])
        probe.expectError(await probe.send(`/pets?${query}`), 'badQuery', 400, 'BAD_REQUEST');
    },
  ],
  [
    'listPets: the status filter',
    async (probe, state) => {
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
    },
  ],
  [
    'listPets: Link paging',
    async (probe, state) => {
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
    },
  ],
  [
    'getPet: 200 and 404, both deprecated',
    async (probe, state) => {
      const known = state.created ?? state.animals[0];
      const replies = [await probe.send(`/pets/${UNUSED_ID}`)];
      probe.expectError(replies[0]!, 'getPet', 404, 'NOT_FOUND');
      if (known) {
        const found = await probe.send(`/pets/${known.id}`);
        probe.expect(
          found,
          'getPet',
          found.status === 200 && JSON.stringify(found.body) === JSON.stringify(known),
          `got ${found.status} ${JSON.stringify(found.body)}, expected ${JSON.stringify(known)}`,
        );
        replies.push(found);
      }
      for (const reply of replies) {
        const deprecation = /^@(\d+)$/.exec(reply.headers.get('deprecation') ?? '');
        probe.expect(
          reply,
          'deprecation',
          !!deprecation && Number(deprecation[1]) * 1000 <= Date.now() + 60_000,
          `Deprecation: ${reply.headers.get('deprecation')}`,
        );
        probe.expect(
          reply,
          'deprecation',
          reply.headers.get('sunset') === SUNSET,
          `Sunset: ${reply.headers.get('sunset')}`,
        );
        const successor = links(reply.headers.get('link'), reply.url).get('successor-version');
        probe.expect(
          reply,
          'deprecation',
          successor?.pathname.endsWith('/pets') === true,
          `Link: ${reply.headers.get('link')}`,
        );
      }
      if (!known) return { skipped: 'the 200 half: no animal on the stage' };
    },
  ],
  [
    'createPet: 400 for an invalid body',
    badCreate('badCreate', 400, 'BAD_REQUEST', 'application/json', '{"name":"","categoryId":"7","id":1}'),
  ],
  [
    'createPet: 415 for a body that is not JSON',
    badCreate('unsupportedMediaType', 415, 'UNSUPPORTED_MEDIA_TYPE', 'text/plain', 'name=Rex'),
  ],
];

/** Write mode only: runs first, so that the listing, paging and getPet checks have animals to read. */
const writeChecks: [string, Check][] = [
  [
    'createPet: 201, its replay and 422 with an Idempotency-Key',
    async (probe, state) => {
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
    },
  ],
];

/** Runs every check once, in order; one check's failure never stops the others. */
export const runSmokeChecks = async (options: SmokeOptions): Promise<CheckResult[]> => {
  const probe = new Probe(options);
  // Writing, the key must be a write key: a 403 is then a failure, not a read key's answer.
  const state: State = { animals: [], ...(options.readOnly ? {} : { readKey: false }) };
  const results: CheckResult[] = [];
  for (const [name, check] of [...(options.readOnly ? [] : writeChecks), ...readChecks]) {
    try {
      const outcome = await check(probe, state);
      results.push(outcome ? { name, outcome: 'skipped', note: outcome.skipped } : { name, outcome: 'passed' });
    } catch (error) {
      if (!(error instanceof Broken)) throw error;
      results.push({ name, outcome: 'failed', note: error.message, violation: error.violation });
    }
  }
  return results;
};
