// The route table's functions plus the authorizer, each allowed exactly the DynamoDB
// calls its repository makes (shared/dynamodb/pets-repository.ts, shared/dynamodb/keys-repository.ts).
import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { AUTHORIZER_ENTRY, type OperationId, routes } from '../../shared/api/routes.ts';
import { rateLimitsEnv } from '../../shared/domain/api-keys.ts';
import { STATUS_INDEX, tables } from '../../shared/dynamodb/tables.ts';
import { CURSOR_SECRET_ARN_ENV } from '../../shared/lambda/cursor-secret.ts';
import { powertoolsEnvironment } from '../../shared/observability/metric-names.ts';
import { type StageSettings, stackName } from '../stages.ts';
import { ApiFunction } from './api-function.ts';
import type { TableName } from './data.ts';

export type FunctionName = OperationId | 'authorizer';

interface TableAccess {
  readonly table: TableName;
  /** An index of the table instead of the table itself. */
  readonly index?: string;
  readonly actions: readonly string[];
  /** IAM conditions narrowing the grant further. */
  readonly conditions?: Readonly<Record<string, Record<string, unknown>>>;
}

/** Least privilege: the calls each function makes, on the table or index it makes them on. */
const ACCESS: Readonly<Record<FunctionName, readonly TableAccess[]>> = {
  listPets: [
    { table: 'pets', index: STATUS_INDEX, actions: ['dynamodb:Query'] },
    { table: 'pets', actions: ['dynamodb:Scan'] },
  ],
  createPet: [
    { table: 'pets', actions: ['dynamodb:PutItem'] },
    { table: 'counters', actions: ['dynamodb:UpdateItem'] },
    // Powertools' persistence layer: take, read, complete and (on failure) delete a record.
    {
      table: 'idempotency',
      actions: ['dynamodb:PutItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
    },
  ],
  getPet: [{ table: 'pets', actions: ['dynamodb:GetItem'] }],
  authorizer: [
    { table: 'keys', actions: ['dynamodb:GetItem'] },
    // The last-use record (keys-repository.ts, recordUse): that one attribute of an item,
    // named by its key, and nothing read back. No other attribute of a key can be changed.
    {
      table: 'keys',
      actions: ['dynamodb:UpdateItem'],
      conditions: {
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['keyHash', 'lastUsedAt'] },
        StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
      },
    },
  ],
};

export interface FunctionsProps {
  readonly settings: StageSettings;
  readonly tables: Readonly<Record<TableName, TableV2>>;
}

export class Functions extends Construct {
  /** Keyed by operationId (shared/api/routes.ts), plus `authorizer`. */
  readonly functions: Readonly<Record<FunctionName, ApiFunction>>;
  /** The HMAC key of listPets' paging cursors. */
  readonly cursorSecret: Secret;

  constructor(scope: Construct, id: string, { settings, tables: deployedTables }: FunctionsProps) {
    super(scope, id);
    const environment = {
      // The functions' subsegments inside Lambda's active tracing (api-function.ts), if the stage wants them.
      ...powertoolsEnvironment(settings.stage, settings.logLevel, settings.functionTracing),
      // Every table's name, as on the local stage: a name grants nothing, the role does.
      ...Object.fromEntries(tables.map((table) => [table.envVar, deployedTables[table.name].tableName])),
    };

    // listPets reads the cursors' HMAC key from Secrets Manager at run time (Powertools
    // Parameters, cached: shared/lambda/cursor-secret.ts), by the ARN given here: the value is
    // never in the template, the assembly, the repository or the function's configuration
    // (which anyone allowed lambda:GetFunctionConfiguration may read). Only listPets pages, so
    // only listPets may read it. A new generation (stage settings) is a new resource, so a new
    // random value and a new ARN, which listPets then reads.
    this.cursorSecret = new Secret(this, `CursorSecret${settings.cursorSecretGeneration}`, {
      // Named under the stack's name, as the stage's CloudFormation execution policy expects
      // (infra/ci/execution-policy.ts); the generation keeps a replacement's name free.
      secretName: `${stackName(settings.stage)}/cursor-secret-${settings.cursorSecretGeneration}`,
      description: `HMAC key of the Pet Store's paging cursors (${settings.stage})`,
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      // Losing it only invalidates the cursors in flight (400, clients start over).
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(this.cursorSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The secret only authenticates paging cursors, which reveal nothing a key holder cannot list anyway. ' +
        'Replacing it makes every cursor in flight a 400, so it is done when needed (cursorSecretGeneration, or a ' +
        'new value put in place: docs/deploying.md, Rotate the cursor secret), not on a schedule.',
    });

    const built = {} as Record<FunctionName, ApiFunction>;
    for (const route of routes) {
      built[route.operationId] = new ApiFunction(this, route.operationId, {
        entry: route.entry,
        description: `Pet Store ${route.operationId}: ${route.method} ${route.path}`,
        settings,
        environment:
          route.operationId === 'listPets'
            ? { ...environment, [CURSOR_SECRET_ARN_ENV]: this.cursorSecret.secretArn }
            : environment,
      });
    }
    built.authorizer = new ApiFunction(this, 'authorizer', {
      entry: AUTHORIZER_ENTRY,
      description: 'Pet Store authorizer: Bearer key to key id',
      settings,
      // The usage plan's limits (usage-plan.ts reads the same settings), which every answer names in RateLimit-Policy.
      environment: { ...environment, ...rateLimitsEnv(settings.keyLimits) },
      // Checks keys even when the account's concurrency runs out (infra/stages.ts).
      reservedConcurrency: settings.authorizerReservedConcurrency,
    });

    for (const [name, accesses] of Object.entries(ACCESS) as [FunctionName, readonly TableAccess[]][]) {
      for (const { table, index, actions, conditions } of accesses) {
        const { tableArn } = deployedTables[table];
        built[name].allow(actions, [index === undefined ? tableArn : `${tableArn}/index/${index}`], conditions);
      }
    }
    // Its own secret, by ARN: the AWS managed key of Secrets Manager needs no grant of ours.
    built.listPets.allow(['secretsmanager:GetSecretValue'], [this.cursorSecret.secretArn]);
    this.functions = built;
  }
}
