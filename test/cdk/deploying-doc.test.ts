// docs/deploying.md names what the stacks hold: its tables of outputs and its list of
// DynamoDB tables are checked against the synthesized templates, so that the page cannot
// fall behind a new table or output again.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { CI_STACK_NAME } from '../../infra/ci/github.ts';
import { DEPLOYED_STAGES } from '../../infra/stages.ts';
import { type CfnTemplate, type SynthesizedApp, synthesized } from './support/synth.ts';

const page = readFileSync(new URL('../../docs/deploying.md', import.meta.url), 'utf8');

let app: SynthesizedApp;
beforeAll(async () => {
  app = await synthesized();
}, 300_000);

/** The outputs an `| Output | What |` table names: every `Name` in its first column, per table. */
const outputTables = (): string[][] =>
  // Indented too: a table inside a list item.
  [...page.matchAll(/^ *\| Output \| What \|\n *\|---\|---\|\n((?: *\|.*\n)+)/gm)].map(([, rows]) =>
    rows!
      .trim()
      .split('\n')
      .flatMap((row) =>
        [
          ...row
            .trim()
            .split('|')[1]!
            .matchAll(/`(\w+)`/g),
        ].map((m) => m[1]!),
      ),
  );

it("the stages' outputs table names every output of both stage stacks, and nothing else", () => {
  const stageTable = outputTables().find((names) => names.includes('BaseUrl'));
  expect(stageTable, 'a table of outputs with BaseUrl').toBeDefined();
  for (const stage of DEPLOYED_STAGES)
    expect([...stageTable!].sort(), stage).toEqual(Object.keys(app.template(stage).Outputs).sort());
});

it("PetStore-ci's outputs table names every output of the CI stack, and nothing else", () => {
  const ci = JSON.parse(readFileSync(join(app.dir, `${CI_STACK_NAME}.template.json`), 'utf8')) as CfnTemplate;
  const ciTable = outputTables().find((names) => names.includes('DiffRoleArn'));
  expect(ciTable, 'a table of outputs with DiffRoleArn').toBeDefined();
  expect([...ciTable!].sort()).toEqual(Object.keys(ci.Outputs).sort());
});

it('the list of DynamoDB tables names every table of the stack, and nothing else', () => {
  const sentence = /the DynamoDB tables ((?:`\w+`(?:, | and )?)+)/.exec(page);
  expect(sentence, 'a sentence "the DynamoDB tables `a`, `b` and `c`"').not.toBeNull();
  const named = [...sentence![1]!.matchAll(/`(\w+)`/g)].map((m) => m[1]!);
  for (const stage of DEPLOYED_STAGES) {
    const template = app.template(stage);
    const tables = Object.entries(template.Resources).filter(([, r]) => r.Type.startsWith('AWS::DynamoDB::'));
    // By the stack's own names for its tables (its `tables` property), each one a table of the template.
    expect(named.sort(), stage).toEqual(Object.keys(app.index[stage].tables).sort());
    expect(tables.map(([id]) => id).sort(), stage).toEqual(Object.values(app.index[stage].tables).sort());
  }
});
