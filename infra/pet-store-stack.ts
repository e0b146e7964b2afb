// One deployed stage of the Pet Store: tables, functions, REST API, and the outputs
// the key tool and the platform engineers read. Everything monitoring needs is a public
// property: the API and its stage, the log groups, the functions and the tables.
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { type RestApi, Stage, type StageBase } from 'aws-cdk-lib/aws-apigateway';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { ManagedPolicy, PermissionsBoundary } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { permissionsBoundaryArn } from './ci/permissions-boundary.ts';
import { Api } from './constructs/api.ts';
import type { ApiFunction } from './constructs/api-function.ts';
import { Data, type TableName } from './constructs/data.ts';
import { Deployment } from './constructs/deployment.ts';
import { type FunctionName, Functions } from './constructs/functions.ts';
import { ReadKeys } from './constructs/read-key.ts';
import type { ReleaseHook } from './constructs/release-hook.ts';
import { KeyUsagePlan } from './constructs/usage-plan.ts';
import { type AlarmDestinations, NO_ALARM_DESTINATIONS } from './monitoring/alarm-destinations.ts';
import { Monitoring } from './monitoring/monitoring.ts';
import { Watch } from './monitoring/watch.ts';
import { STACK_OUTPUTS, type StageSettings } from './stages.ts';

export interface PetStoreStackProps extends StackProps {
  readonly settings: StageSettings;
  /** Who the stage's alarms notify: set per deploy (infra/monitoring/alarm-destinations.ts). */
  readonly alarmDestinations?: AlarmDestinations;
}

type OutputKey = keyof typeof STACK_OUTPUTS;
/** Which output names which table: a new table in shared/dynamodb/tables.ts does not compile without one. */
const TABLE_OUTPUTS = {
  pets: 'petsTableName',
  keys: 'keysTableName',
  counters: 'countersTableName',
  idempotency: 'idempotencyTableName',
} as const satisfies Readonly<Record<TableName, OutputKey>>;
/** What every other output says: a new key in STACK_OUTPUTS does not compile without its value. */
type OtherOutputs = Record<
  Exclude<OutputKey, (typeof TABLE_OUTPUTS)[TableName]>,
  { description: string; value: string }
>;

export class PetStoreStack extends Stack {
  readonly settings: StageSettings;
  readonly api: RestApi;
  readonly apiStage: Stage;
  readonly accessLogGroup: LogGroup;
  readonly executionLogGroup: LogGroup;
  /** Each function with its log group and role, keyed by operationId, plus `authorizer`. */
  readonly functions: Readonly<Record<FunctionName, ApiFunction>>;
  /** Keyed by the table definition's name (shared/dynamodb/tables.ts). */
  readonly tables: Readonly<Record<TableName, TableV2>>;
  /** Each function's pre-traffic hook (infra/constructs/release-hook.ts). */
  readonly releaseHooks: Readonly<Record<FunctionName, ReleaseHook>>;
  /** listPets' paging cursors' HMAC key, and the release checks' probe key. */
  readonly cursorSecret: ISecret;
  readonly probeKey: ISecret;

  constructor(scope: Construct, id: string, { settings, alarmDestinations, ...props }: PetStoreStackProps) {
    super(scope, id, { terminationProtection: settings.terminationProtection, ...props });
    this.settings = settings;
    // Every role this stack makes carries the stage's boundary (PetStore-ci makes it), without
    // which the stage's execution policy refuses to create it: no role of the stage can do more.
    PermissionsBoundary.of(this).apply(
      ManagedPolicy.fromManagedPolicyArn(this, 'PermissionsBoundary', permissionsBoundaryArn(settings.stage)),
    );

    const data = new Data(this, 'Data', { settings });
    this.tables = data.tables;
    const functions = new Functions(this, 'Functions', { settings, tables: this.tables });
    this.functions = functions.functions;
    this.cursorSecret = functions.cursorSecret;
    // API Gateway invokes each function's `live` alias, which a deploy moves (Deployment, below).
    const live = {} as Record<FunctionName, { function: IFunction }>;
    for (const [name, f] of Object.entries(this.functions) as [FunctionName, ApiFunction][])
      live[name] = { function: f.alias };
    const api = new Api(this, 'Api', {
      settings,
      functions: live,
      authorizer: this.functions.authorizer.alias,
    });
    this.api = api.restApi;
    this.apiStage = api.stage;
    this.accessLogGroup = api.accessLogGroup;
    this.executionLogGroup = api.executionLogGroup;
    const { usagePlan } = new KeyUsagePlan(this, 'KeyLimits', { settings, api: this.api, stage: this.apiStage });

    // The stage by its name, not a reference to it: a reference would make the API alarms depend on
    // the API deployment, which depends on the functions' live aliases, whose CodeDeploy groups
    // watch those alarms: a cycle CloudFormation refuses (cfn-lint E3004). Same dimensions.
    const apiStageByName = Stage.fromStageAttributes(this, 'ApiStageByName', {
      stageName: settings.stage,
      restApi: this.api,
    }) as StageBase;
    // On-call's alarms, dashboard and saved queries (docs/runbook.md), deployed with the stage.
    const monitoring = new Monitoring(this, 'Monitoring', {
      stage: settings.stage,
      alarms: settings.alarms,
      releaseAlarms: settings.releaseAlarms,
      alarmDestinations: alarmDestinations ?? NO_ALARM_DESTINATIONS,
      alarmDestinationRequired: settings.alarmDestinationRequired,
      apiStage: apiStageByName,
      accessLogGroup: this.accessLogGroup,
      functions: this.functions,
      tables: this.tables,
    });
    const deployment = new Deployment(this, 'Deployment', {
      settings,
      functions: this.functions,
      releaseAlarms: monitoring.releaseAlarms,
    });
    this.releaseHooks = deployment.hooks;
    this.probeKey = deployment.probeKey;
    // The smoke canary and the SLO burn-rate alerts (infra/monitoring/watch.ts). Not CodeDeploy's
    // rollback alarms: they judge minutes to hours, longer than a deploy's canary window.
    const watch = new Watch(this, 'Watch', {
      settings,
      baseUrl: api.baseUrl,
      apiStage: apiStageByName,
      alarmActions: monitoring.alarmActions,
      noDataActions: monitoring.filteredAlarmActions,
      dashboard: monitoring.dashboard,
    });
    // The probe key and the canary's key, minted by the stack: a fresh stage needs no key by hand.
    const readKeys = new ReadKeys(this, 'ReadKeys', {
      settings,
      keysTable: this.tables.keys,
      probeKeySecret: deployment.probeKey,
      canaryKeySecret: watch.canary.keySecret,
      usagePlan,
    });
    // The canary's first run, right after its creation, finds its key in its secret and in the plan.
    watch.canary.canary.node.addDependency(readKeys.canaryKey, readKeys.canaryUsagePlanKey);

    const outputs: OtherOutputs = {
      baseUrl: { description: 'Base address of the API: append /pets', value: api.baseUrl },
      restApiId: {
        description: 'Id of the REST API (the key tool flushes its authorizer cache on revoke)',
        value: this.api.restApiId,
      },
      probeKeySecretArn: {
        description: "The secret that holds the release checks' probe key (docs/deploying.md)",
        value: deployment.probeKey.secretArn,
      },
      usagePlanId: { description: 'The usage plan the key tool puts each API key in', value: usagePlan.usagePlanId },
      canaryKeySecretArn: {
        description: "The secret that holds the smoke canary's read key (docs/deploying.md: the canary's key)",
        value: watch.canary.keySecret.secretArn,
      },
    };
    for (const [name, { description, value }] of Object.entries(outputs) as [
      OutputKey,
      OtherOutputs[keyof OtherOutputs],
    ][]) {
      new CfnOutput(this, STACK_OUTPUTS[name], { key: STACK_OUTPUTS[name], description, value });
    }
    for (const [table, name] of Object.entries(TABLE_OUTPUTS) as [TableName, OutputKey][]) {
      const key = STACK_OUTPUTS[name];
      new CfnOutput(this, key, { key, description: `Name of the ${table} table`, value: this.tables[table].tableName });
    }
  }
}
