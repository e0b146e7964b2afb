// The route table's functions plus the authorizer, each allowed exactly the DynamoDB calls its
// entry in shared/api/routes.ts lists (those its repository makes: shared/dynamodb/*-repository.ts).
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { ParamsAndSecretsLayerVersion, type ParamsAndSecretsVersions } from 'aws-cdk-lib/aws-lambda';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import {
  AUTHORIZER_ENTRY,
  type DynamoDBAction,
  dynamodbCalls,
  FUNCTION_NAMES,
  type FunctionName,
  routes,
} from '../../shared/api/routes.ts';
import { rateLimitsEnv } from '../../shared/domain/api-keys.ts';
import { SHARD_RECORD_KEY } from '../../shared/dynamodb/shard-count.ts';
import { STATUS_SHARDS_ENV } from '../../shared/dynamodb/status-shards.ts';
import { tables } from '../../shared/dynamodb/tables.ts';
import { CURSOR_SECRET_ARN_ENV, EXTENSION_CACHE_SECONDS } from '../../shared/lambda/cursor-secret.ts';
import { powertoolsEnvironment } from '../../shared/observability/metric-names.ts';
import { sourceCommitEnvironment } from '../source-commit.ts';
import { EXTENSION_LAYER } from '../stage-deployment.ts';
import { type StageSettings, stackName } from '../stages.ts';
import { ApiFunction } from './api-function.ts';
import type { TableName } from './data.ts';

export type { FunctionName } from '../../shared/api/routes.ts';

type Conditions = Readonly<Record<string, Record<string, unknown>>>;

/**
 * Least privilege: each function may make the DynamoDB calls its route entry lists
 * (shared/api/routes.ts), on the table or index it makes them on, narrowed further here where
 * IAM can say more than the list.
 */
const CONDITIONS: Partial<Record<FunctionName, Partial<Record<DynamoDBAction, Conditions>>>> = {
  authorizer: {
    // The last-use record (keys-repository.ts, recordUse): that one attribute of an item,
    // named by its key, and nothing read back. No other attribute of a key can be changed.
    UpdateItem: {
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['keyHash', 'lastUsedAt'] },
      StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
    },
  },
  listPets: {
    // Its one GetItem: the counters table's shard record (shard-count.ts), no other counter.
    GetItem: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [SHARD_RECORD_KEY] } },
  },
};

/** The conditions of a grant of `actions`: those of its actions, which must all agree. */
const conditionsOf = (name: FunctionName, actions: readonly DynamoDBAction[]): Conditions | undefined => {
  const found = new Set(actions.map((action) => CONDITIONS[name]?.[action]));
  if (found.size > 1) throw new Error(`${name}: grant ${actions.join(', ')} separately, their conditions differ`);
  return [...found][0];
};

/** listPets' extension layer (arm64, as the function), its cache's TTL the one cursor-secret.ts counts on. */
export const cursorSecretExtension = (): ParamsAndSecretsLayerVersion =>
  ParamsAndSecretsLayerVersion.fromVersion(EXTENSION_LAYER.version as ParamsAndSecretsVersions, {
    secretsManagerTtl: Duration.seconds(EXTENSION_CACHE_SECONDS),
  });

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
      // N of the status index: createPet writes under it, listPets reads every shard below it.
      [STATUS_SHARDS_ENV]: String(settings.statusIndexShards),
      // The commit the bundles are built from, named by every line the functions write (and by
      // `aws lambda get-function-configuration`): each commit deployed is a new version of each function.
      ...sourceCommitEnvironment(),
    };

    // listPets reads the cursors' HMAC key from Secrets Manager at run time (through the
    // Parameters and Secrets Lambda Extension's layer, cached: shared/lambda/cursor-secret.ts),
    // by the ARN given here: the value is
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
        ...(route.operationId === 'listPets'
          ? {
              environment: { ...environment, [CURSOR_SECRET_ARN_ENV]: this.cursorSecret.secretArn },
              paramsAndSecrets: cursorSecretExtension(),
            }
          : { environment }),
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

    for (const name of FUNCTION_NAMES) {
      for (const { table, index, actions } of dynamodbCalls(name)) {
        const { tableArn } = deployedTables[table];
        built[name].allow(
          actions.map((action) => `dynamodb:${action}`),
          [index === undefined ? tableArn : `${tableArn}/index/${index}`],
          conditionsOf(name, actions),
        );
      }
    }
    // Its own secret, by ARN: the AWS managed key of Secrets Manager needs no grant of ours.
    built.listPets.allow(['secretsmanager:GetSecretValue'], [this.cursorSecret.secretArn]);
    this.functions = built;
  }
}
