// The data model's rule, held after any sequence of writes: an animal is listed under its status
// and only there, and a write to an id no animal has creates nothing. The writes are every write
// operation of the route table, sent as its valid sample with a drawn status (and a drawn id for
// a path parameter), and the repository's update, at any N of the status index up to the
// functions' (N only grows). What is listed is read through listPets itself, filtered and not,
// against dynalite: nothing here reads the code's own index keys.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type OperationId, pathParameters, routes } from '../../shared/api/routes.ts';
import { type Pet, PetStatus } from '../../shared/api/schemas.ts';
import { createCursorCodec } from '../../shared/domain/cursor.ts';
import { createPetsRepository } from '../../shared/dynamodb/pets-repository.ts';
import { STATUS_SHARDS_ENV } from '../../shared/dynamodb/status-shards.ts';
import { countersTable, petsTable } from '../../shared/dynamodb/tables.ts';
import { sampleHttpRequest, sampleRequests } from '../../tools/harness/sample-requests.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';
import { bodyOf, type Functions, loadFunctions, proxyEvent, setFunctionEnv } from '../support/in-process.ts';

const SHARDS = 4;
const STATUSES = PetStatus.options;
/** No animal will have it: ids are handed out from 1 upwards. */
const ABSENT_ID = 9_007_199_254_740_991;

let db: TestDynamoDB;
let functions: Functions;
beforeAll(async () => {
  db = await startTestDynamoDB();
  setFunctionEnv(db.endpoint);
  process.env[STATUS_SHARDS_ENV] = String(SHARDS);
  functions = await loadFunctions();
});
afterAll(async () => {
  delete process.env[STATUS_SHARDS_ENV];
  await db?.close();
});

/** The repository at N = `shards`, as a stage that grew N from there has it. */
const repository = (shards: number) =>
  createPetsRepository({
    client: db.plain,
    petsTableName: petsTable.name,
    countersTableName: countersTable.name,
    cursors: createCursorCodec('status-index-test-cursor-secret-0123'),
    statusShards: shards,
  });

const WRITES = routes.filter((r) => r.scope === 'write').map((r) => r.operationId);

type Write =
  | { kind: 'operation'; operationId: OperationId; status: PetStatus; target: number }
  | { kind: 'update'; status: PetStatus; target: number; shards: number };

const write: fc.Arbitrary<Write> = fc.oneof(
  fc.record({
    kind: fc.constant('operation' as const),
    operationId: fc.constantFrom(...WRITES),
    status: fc.constantFrom(...STATUSES),
    target: fc.nat(),
  }),
  fc.record({
    kind: fc.constant('update' as const),
    status: fc.constantFrom(...STATUSES),
    target: fc.nat(),
    shards: fc.integer({ min: 1, max: SHARDS }),
  }),
);

/** An id of an animal written so far, or (one time in four, and while there is none) an id nobody has. */
const idOf = (known: readonly number[], target: number): number =>
  known.length === 0 || target % 4 === 3 ? ABSENT_ID : known[target % known.length]!;

const run = async (w: Write, known: number[]): Promise<void> => {
  if (w.kind === 'update') {
    await repository(w.shards).update(idOf(known, w.target), { status: w.status });
    return;
  }
  const { valid } = sampleRequests[w.operationId];
  const r = routes.find((route) => route.operationId === w.operationId)!;
  const id = String(idOf(known, w.target));
  const sample = {
    ...valid,
    ...(pathParameters(r).length > 0 && {
      pathParameters: Object.fromEntries(pathParameters(r).map((name) => [name, id])),
    }),
    ...(typeof valid.body === 'object' && { body: { ...valid.body, status: w.status } }),
  };
  const { method, path, headers, body } = sampleHttpRequest(w.operationId, sample, { versioned: true });
  const answer = await functions.invoke(proxyEvent({ method, path, headers, body }));
  expect(answer.statusCode, `${w.operationId}: ${answer.body}`).toBeLessThan(500);
  if (answer.statusCode === 201) known.push((bodyOf(answer) as Pet).id);
};

/** Every animal listPets shows, filtered by `status` or not, following its next links. */
const listed = async (status?: PetStatus): Promise<Pet[]> => {
  const pets: Pet[] = [];
  let path: string | undefined = `/v1/pets?limit=100${status ? `&status=${status}` : ''}`;
  while (path) {
    const answer = await functions.invoke(proxyEvent({ path }));
    expect(answer.statusCode).toBe(200);
    pets.push(...(bodyOf(answer) as Pet[]));
    const next = /<([^>]+)>; rel="next"/.exec(String(answer.headers?.Link ?? ''))?.[1];
    path = next?.replace(/^\/staging/, '');
  }
  return pets;
};

test('after any sequence of writes, each animal is listed under its status and only there', async () => {
  const known: number[] = [];
  await fc.assert(
    fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 8 }), async (writes) => {
      for (const w of writes) await run(w, known);
      const all = await listed();
      // A write to an absent id made nothing: every animal listed is one a create answered.
      expect(all.map((pet) => pet.id).sort((a, b) => a - b)).toEqual([...known].sort((a, b) => a - b));
      for (const status of STATUSES) {
        const want = all.filter((pet) => pet.status === status).map((pet) => pet.id);
        const got = (await listed(status)).map((pet) => pet.id);
        expect(got, status).toEqual(want.sort((a, b) => a - b));
      }
    }),
    { numRuns: 25 },
  );
}, 120_000);
