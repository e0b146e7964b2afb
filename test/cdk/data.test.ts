// DynamoDB: one on-demand TableV2 per definition of shared/dynamodb/tables.ts, keys and indexes
// exactly as defined there, and the stage's data-protection settings.
import { beforeAll, describe, expect, test } from 'vitest';
import { DEPLOYED_STAGES, STACK_OUTPUTS, stageSettings } from '../../infra/stages.ts';
import { type TableDefinition, tables } from '../../shared/dynamodb/tables.ts';
import { type SynthesizedApp, synthesized } from './support/synth.ts';
import { render, resource, resourcesOfType } from './support/template.ts';

let app: SynthesizedApp;
beforeAll(async () => {
  app = await synthesized();
}, 300_000);

const keySchema = (partitionKey: string, sortKey?: string) => [
  { AttributeName: partitionKey, KeyType: 'HASH' },
  ...(sortKey ? [{ AttributeName: sortKey, KeyType: 'RANGE' }] : []),
];

/** The attribute definitions a table needs: every key attribute of the table and its indexes, once. */
const attributeDefinitions = (definition: TableDefinition) => {
  const keys = [
    definition.partitionKey,
    ...definition.indexes.flatMap((i) => [i.partitionKey, ...(i.sortKey ? [i.sortKey] : [])]),
  ];
  const unique = new Map(keys.map((k) => [k.name, { AttributeName: k.name, AttributeType: k.type }]));
  return [...unique.values()].sort((a, b) => a.AttributeName.localeCompare(b.AttributeName));
};

describe.each(DEPLOYED_STAGES)('stage %s', (stage) => {
  const settings = stageSettings[stage];

  test('has one table per definition of shared/dynamodb/tables.ts, and no other', () => {
    expect(resourcesOfType(app.template(stage), 'AWS::DynamoDB::GlobalTable')).toHaveLength(tables.length);
    expect(resourcesOfType(app.template(stage), 'AWS::DynamoDB::Table')).toHaveLength(0);
    expect(Object.keys(app.index[stage].tables).sort()).toEqual(tables.map((t) => t.name).sort());
  });

  describe.each(tables.map((t) => [t.name, t] as const))('table %s', (name, definition) => {
    const table = () => resource(app.template(stage), app.index[stage].tables[name]!);

    test('has the keys and indexes of its definition', () => {
      const properties = table().Properties!;
      expect(properties.KeySchema).toEqual(keySchema(definition.partitionKey.name));
      expect(
        [...properties.AttributeDefinitions].sort((a: any, b: any) => a.AttributeName.localeCompare(b.AttributeName)),
      ).toEqual(attributeDefinitions(definition));
      expect(properties.GlobalSecondaryIndexes ?? []).toEqual(
        definition.indexes.map((index) => ({
          IndexName: index.indexName,
          KeySchema: keySchema(index.partitionKey.name, index.sortKey?.name),
          Projection: { ProjectionType: index.projection },
        })),
      );
      // A name chosen by CloudFormation: staging and production never collide, and a
      // retained production table never blocks a new stack.
      expect(properties.TableName).toBeUndefined();
    });

    test('pets: the status index is keyed by statusShard (<status>#<id mod N>) and id, so N can grow with no new index', () => {
      if (name !== 'pets') return;
      const [index] = table().Properties!.GlobalSecondaryIndexes;
      expect(index.KeySchema).toEqual(keySchema('statusShard', 'id'));
    });

    test('expires items by its TTL attribute when it has one (locally Powertools checks the expiry itself)', () => {
      const ttlAttribute = (definition as TableDefinition).timeToLiveAttribute;
      expect(table().Properties!.TimeToLiveSpecification).toEqual(
        ttlAttribute === undefined ? undefined : { AttributeName: ttlAttribute, Enabled: true },
      );
    });

    test('is on demand and encrypted with the AWS owned key', () => {
      const properties = table().Properties!;
      expect(properties.BillingMode).toBe('PAY_PER_REQUEST');
      expect(properties.SSESpecification).toEqual({ SSEEnabled: false });
    });

    test("follows the stage's point-in-time recovery, deletion protection and removal policy", () => {
      const { Properties, DeletionPolicy, UpdateReplacePolicy } = table();
      expect(Properties!.Replicas).toHaveLength(1);
      expect(Properties!.Replicas[0]).toMatchObject({
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: settings.pointInTimeRecovery },
        DeletionProtectionEnabled: settings.deletionProtection,
      });
      const policy = settings.removalPolicy === 'retain' ? 'Retain' : 'Delete';
      expect(DeletionPolicy).toBe(policy);
      expect(UpdateReplacePolicy).toBe(policy);
    });
  });

  test('production keeps every table; staging may delete them', () => {
    const policies = resourcesOfType(app.template(stage), 'AWS::DynamoDB::GlobalTable').map(
      ([, t]) => t.DeletionPolicy,
    );
    expect(new Set(policies)).toEqual(new Set([stage === 'production' ? 'Retain' : 'Delete']));
  });

  test("outputs every table's name under the keys of STACK_OUTPUTS (the key tool reads KeysTableName)", () => {
    const { Outputs } = app.template(stage);
    const expected: Record<string, string> = {
      [STACK_OUTPUTS.petsTableName]: 'pets',
      [STACK_OUTPUTS.keysTableName]: 'keys',
      [STACK_OUTPUTS.countersTableName]: 'counters',
      [STACK_OUTPUTS.idempotencyTableName]: 'idempotency',
    };
    for (const [key, table] of Object.entries(expected)) {
      expect(render(Outputs[key]!.Value)).toBe(`\${${app.index[stage].tables[table]}}`);
    }
  });
});
