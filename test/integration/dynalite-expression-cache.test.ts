// The embedded DynamoDB's memoized expression parses (infra/local/dynalite-expression-cache.ts):
// held to dynalite's own validation run with pristine copies of its parsers (loaded from the
// package's files, untouched by the patch), on the first request of an expression and on the next
// ones (hits), and over HTTP for what dynalite does with a parse afterwards.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { GetItemCommand, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoizedParse } from '../../infra/local/dynalite-expression-cache.ts';
import { fromDynalite } from '../../infra/local/dynalite-modules.ts';
import { petsTable } from '../../shared/dynamodb/tables.ts';
import { expressionCases as cases, N, S } from '../support/dynalite-expressions.ts';
import { startTestDynamoDB, type TestDynamoDB } from '../support/dynamodb.ts';

type Data = Record<string, unknown>;
interface Validations {
  validateExpressions(data: Data): string | undefined;
}
type Parser = { parse: (text: string, options: { context: object }) => unknown };

/** A fresh copy of one of dynalite's generated parsers (they require nothing). */
const pristineParser = (name: string): Parser => {
  const module = { exports: {} as Parser };
  new Function('module', 'exports', readFileSync(fromDynalite.resolve(`./db/${name}`), 'utf8'))(module, module.exports);
  return module.exports;
};

/** dynalite's validations module as the library ships it, with pristine parsers. */
const pristineValidations = (): Validations => {
  const file = fromDynalite.resolve('./validations/index.js');
  const fromValidations = createRequire(file);
  const parsers: Record<string, Parser> = {};
  for (const name of ['conditionParser', 'projectionParser', 'updateParser'])
    parsers[`../db/${name}`] = pristineParser(name);
  const module = { exports: {} as Validations };
  const require = (id: string) => parsers[id] ?? fromValidations(id);
  new Function('require', 'module', 'exports', readFileSync(file, 'utf8'))(require, module, module.exports);
  return module.exports;
};

const library = pristineValidations();
const patched = fromDynalite('./validations/index.js') as Validations;

const PARSED = ['_updates', '_condition', '_keyCondition', '_filter', '_projection'] as const;

/** dynalite's verdict on `data` and the trees it kept, by the library and by the patched module. */
const both = (data: Data) => {
  const [ours, theirs] = [structuredClone(data), structuredClone(data)];
  const verdicts = [patched.validateExpressions(ours), library.validateExpressions(theirs)];
  return { verdicts, ours, theirs };
};

describe('a parse, memoized, is the library parse', () => {
  for (const { name, data, again } of cases)
    it(name, () => {
      // three times with the first values (a miss, then hits), then with others of the same kinds
      const runs = [data, data, data, again ? { ...data, ExpressionAttributeValues: again } : data];
      for (const run of runs) {
        const { verdicts, ours, theirs } = both(run);
        expect(verdicts[0]).toBe(verdicts[1]);
        for (const field of PARSED) expect(ours[field]).toStrictEqual(theirs[field]);
        // the request's own value objects, as a parse returns them, not copies of another's
        if (name === 'createPet' && verdicts[0] === undefined) {
          const values = ours.ExpressionAttributeValues as Record<string, unknown>;
          const or = (ours._condition as { expression: { args: { args: { args: unknown[] }[] }[] } }).expression;
          expect(or.args[1]!.args[0]!.args[1]).toBe(values[':name']);
        }
      }
    });
});

it('an expression parsed with other values of the same kinds is not parsed again; the cache is an LRU of its size', () => {
  const parser = pristineParser('conditionParser');
  let parses = 0;
  const counted = {
    parse: (text: string, options: { context: object }) => {
      parses++;
      return parser.parse(text, options);
    },
  };
  const parse = memoizedParse(counted, undefined, 2);
  const context = (v: string) => ({
    attrVals: { ':v': S(v) },
    isReserved: () => false,
    compare: () => false,
    unusedAttrVals: {},
  });
  parse('a = :v', { context: context('1') });
  parse('a = :v', { context: context('2') });
  expect(parses).toBe(1);
  parse('b = :v', { context: context('1') });
  parse('a = :v', { context: context('3') }); // used last: b is the oldest
  parse('c = :v', { context: context('1') });
  expect(parses).toBe(3);
  parse('a = :v', { context: context('4') });
  expect(parses).toBe(3);
  parse('b = :v', { context: context('1') });
  expect(parses).toBe(4);
});

describe('over HTTP', () => {
  let db: TestDynamoDB;
  beforeAll(async () => {
    db = await startTestDynamoDB();
  });
  afterAll(() => db.close());
  const table = petsTable.name;

  it('names and values a request leaves unused are refused on every request, used ones never', async () => {
    const put = (id: number, names: Record<string, string>, values: Record<string, { S: string }>) =>
      db.plain.send(
        new PutItemCommand({
          TableName: table,
          Item: { id: N(id) },
          ConditionExpression: 'attribute_not_exists(#id) OR #other = :v',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
    for (const id of [1, 2, 3]) await put(id, { '#id': 'id', '#other': 'other' }, { ':v': S(`${id}`) });
    for (const id of [4, 5])
      await expect(put(id, { '#id': 'id', '#other': 'other', '#spare': 'x' }, { ':v': S('1') })).rejects.toThrow(
        'Value provided in ExpressionAttributeNames unused in expressions: keys: {#spare}',
      );
    for (const id of [6, 7])
      await expect(put(id, { '#id': 'id', '#other': 'other' }, { ':v': S('1'), ':spare': S('2') })).rejects.toThrow(
        'Value provided in ExpressionAttributeValues unused in expressions: keys: {:spare}',
      );
  });

  // updateItem replaces a SET's `if_not_exists(...)` in the parse with its value: a parse shared
  // between requests would give the third the first one's value.
  it('a parse that dynalite changes is never another request’s', async () => {
    const ids = [101, 102, 103];
    await db.plain.send(new PutItemCommand({ TableName: table, Item: { id: N(102), c: S('kept') } }));
    for (const [i, id] of ids.entries())
      await db.plain.send(
        new UpdateItemCommand({
          TableName: table,
          Key: { id: N(id) },
          UpdateExpression: 'SET c = if_not_exists(c, :v)',
          ExpressionAttributeValues: { ':v': S(`set by ${i}`) },
        }),
      );
    const c = async (id: number) =>
      (await db.plain.send(new GetItemCommand({ TableName: table, Key: { id: N(id) } }))).Item?.c;
    expect([await c(101), await c(102), await c(103)]).toStrictEqual([S('set by 0'), S('kept'), S('set by 2')]);
  });
});
