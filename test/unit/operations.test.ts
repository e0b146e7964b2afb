// Every operation of the route table has every fact the rest of the project needs of it, and
// this test names what is missing, here in the fastest tier rather than in a full run or a
// deploy: what the type checker cannot see (the `Record<OperationId, …>` tables it does).
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import {
  answers,
  dynamodbCalls,
  FUNCTION_NAMES,
  KEY_SCOPES,
  pathParameters,
  type Route,
  routes,
} from '../../shared/api/routes.ts';
import { tables } from '../../shared/dynamodb/tables.ts';
import { releaseChecks } from '../../shared/release-checks/checks.ts';
import { sampleRequests } from '../../tools/harness/sample-requests.ts';
import { openApiDocument } from '../../tools/openapi.ts';

const ROOT = new URL('../../', import.meta.url);
const apiDoc = readFileSync(new URL('docs/api.md', ROOT), 'utf8');
const document = openApiDocument() as { paths: Record<string, Record<string, { operationId: string }>> };

/** What an operation lacks, each problem naming the operation and the fact. */
const missing = (r: Route): string[] => {
  const problems: string[] = [];
  const lack = (fact: string) => problems.push(`${r.operationId}: ${fact}`);
  if (!existsSync(new URL(r.entry, ROOT))) lack(`no handler at ${r.entry}`);
  if (!(KEY_SCOPES as readonly string[]).includes(r.scope)) lack(`scope ${r.scope} is not one of ${KEY_SCOPES}`);
  for (const { table, index, actions } of r.dynamodb) {
    const definition = tables.find((t) => t.name === table);
    if (!definition) lack(`its DynamoDB calls name a table ${table} that shared/dynamodb/tables.ts lacks`);
    else if (index !== undefined && !definition.indexes.some((i) => i.indexName === index))
      lack(`its DynamoDB calls name an index ${index} that the ${table} table lacks`);
    if (actions.length === 0) lack(`a DynamoDB call on ${table} with no action`);
  }
  if (!releaseChecks[r.operationId]) lack('no release checks (shared/release-checks/checks.ts)');
  if ((r.statuses[0] === 204) !== (r.response === undefined))
    lack(
      r.response ? 'a response schema, but it succeeds with 204 (no body)' : 'no response schema (its success body)',
    );

  const samples = sampleRequests[r.operationId];
  if (!samples) lack('no sample requests (shared/release-checks/samples.ts)');
  else {
    if (samples.valid.status !== r.statuses[0])
      lack(`its valid sample expects ${samples.valid.status}, its entry succeeds with ${r.statuses[0]}`);
    const refusesInput = answers(r).includes(400);
    if (refusesInput && samples.invalid?.status !== 400) lack('no invalid sample request (a 400 and its field)');
    if (!refusesInput && samples.invalid) lack('an invalid sample, but it takes no input to refuse');
    const names = pathParameters(r);
    if (names.length > 0 && !samples.notFound) lack('no not-found sample request (it has a path parameter)');
    for (const [kind, sample] of Object.entries(samples))
      for (const name of names)
        if (sample.pathParameters?.[name] === undefined) lack(`its ${kind} sample has no path parameter ${name}`);
    if ((r.body !== undefined) !== (samples.valid.body !== undefined))
      lack(r.body ? 'its valid sample sends no body' : 'its valid sample sends a body it does not take');
  }

  if (document.paths[r.path]?.[r.method.toLowerCase()]?.operationId !== r.operationId)
    lack(`no ${r.method} ${r.path} in the OpenAPI document`);
  if (!apiDoc.includes(`## ${r.operationId} — \`${r.method} ${r.path}\``))
    lack(`no "## ${r.operationId} — \`${r.method} ${r.path}\`" section in docs/api.md`);
  return problems;
};

describe('every operation has every per-operation fact', () => {
  test('the route table is read', () => {
    expect(routes.length).toBeGreaterThan(0);
    expect(FUNCTION_NAMES).toEqual([...routes.map((r) => r.operationId), 'authorizer']);
  });

  test.each(routes.map((r) => [r.operationId, r] as const))('%s', (_, r) => {
    expect(missing(r)).toEqual([]);
  });

  test('every function makes DynamoDB calls on tables that exist, and has release checks', () => {
    for (const name of FUNCTION_NAMES) {
      expect(releaseChecks[name], `${name}: no release checks`).toBeTypeOf('function');
      for (const { table } of dynamodbCalls(name))
        expect(
          tables.map((t) => t.name),
          name,
        ).toContain(table);
    }
  });

  test('names what is missing: an operation stripped of its facts', () => {
    // A name no operation will have: a real one of the same name would have its facts.
    const bare = {
      ...routes[0]!,
      operationId: 'strayOperation',
      path: '/pets/{petId}/stray',
      entry: 'functions/stray-operation.ts',
      dynamodb: [{ table: 'pets', index: 'byColour', actions: [] }],
    } as unknown as Route;
    expect(missing(bare)).toEqual([
      'strayOperation: no handler at functions/stray-operation.ts',
      'strayOperation: its DynamoDB calls name an index byColour that the pets table lacks',
      'strayOperation: a DynamoDB call on pets with no action',
      'strayOperation: no release checks (shared/release-checks/checks.ts)',
      'strayOperation: no sample requests (shared/release-checks/samples.ts)',
      'strayOperation: no GET /pets/{petId}/stray in the OpenAPI document',
      'strayOperation: no "## strayOperation — `GET /pets/{petId}/stray`" section in docs/api.md',
    ]);
  });
});
