// The tables of shared/dynamodb/tables.ts as DynamoDB TableV2 resources: keys and indexes come
// from the shared definitions, never restated, so the stack and the local server agree.
import { RemovalPolicy } from 'aws-cdk-lib';
import {
  type Attribute,
  AttributeType,
  Billing,
  ProjectionType,
  TableEncryptionV2,
  TableV2,
} from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { type KeyAttribute, tables } from '../../shared/dynamodb/tables.ts';
import type { StageSettings } from '../stages.ts';
import { checkStatusIndexShards } from '../status-index-shards.ts';

export type TableName = (typeof tables)[number]['name'];

export interface DataProps {
  readonly settings: StageSettings;
}

const attribute = ({ name, type }: KeyAttribute): Attribute => ({
  name,
  type: type === 'S' ? AttributeType.STRING : AttributeType.NUMBER,
});

export const removalPolicyOf = (settings: Pick<StageSettings, 'removalPolicy'>): RemovalPolicy =>
  settings.removalPolicy === 'retain' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

export class Data extends Construct {
  /** Keyed by the definition's name (shared/dynamodb/tables.ts). */
  readonly tables: Readonly<Record<TableName, TableV2>>;

  constructor(scope: Construct, id: string, { settings }: DataProps) {
    super(scope, id);
    checkStatusIndexShards(settings);
    const built = {} as Record<TableName, TableV2>;
    for (const definition of tables) {
      const table = new TableV2(this, definition.name, {
        partitionKey: attribute(definition.partitionKey),
        globalSecondaryIndexes: definition.indexes.map((index) => ({
          indexName: index.indexName,
          partitionKey: attribute(index.partitionKey),
          ...(index.sortKey && { sortKey: attribute(index.sortKey) }),
          projectionType: index.projection === 'ALL' ? ProjectionType.ALL : ProjectionType.KEYS_ONLY,
        })),
        ...('timeToLiveAttribute' in definition && { timeToLiveAttribute: definition.timeToLiveAttribute }),
        // On demand: traffic is unknown and spiky, and an idle staging table costs nothing.
        billing: Billing.onDemand(),
        // The AWS owned key: still encrypted at rest, with no KMS charge per request, no key
        // policy to keep and no kms:Decrypt to grant. The data is a public catalogue and
        // SHA-256 hashes of 256-bit random keys, which no one can turn back into keys; a
        // customer managed key would buy key-usage audit and revocation that nothing here needs.
        encryption: TableEncryptionV2.dynamoOwnedKey(),
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: settings.pointInTimeRecovery },
        deletionProtection: settings.deletionProtection,
        removalPolicy: removalPolicyOf(settings),
      });
      built[definition.name] = table;
    }
    this.tables = built;
  }
}
