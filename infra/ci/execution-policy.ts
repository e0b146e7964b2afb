// What CloudFormation may do when it deploys one stage: the policy `cdk bootstrap
// --cloudformation-execution-policies` gives that stage's execution role (docs/deploying.md,
// "Stages that cannot touch each other") instead of the default AdministratorAccess
// (aws/aws-cdk#27097), so that a stage's deploy role cannot create, change or delete anything of
// another stage, even in one shared account. Per service, the actions CloudFormation's handlers
// call for our resource types, on the names CloudFormation gives them (`PetStore-staging-…`) or we
// give them (all under the stack's name). test/cdk/execution-policy-coverage.test.ts holds it to
// every permission the registry's schemas list for every resource of the stage's template. Roles
// only with the stage's permissions boundary (permissions-boundary.ts). Two managed policies: IAM
// caps one at 6,144 characters.
import { Aws } from 'aws-cdk-lib';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { BOOTSTRAP_QUALIFIERS } from '../stage-deployment.ts';
import { type DeployedStage, STAGE_TAG, stackName } from '../stages.ts';
import { boundaryEnforcement, permissionsBoundaryArn } from './permissions-boundary.ts';

/** The managed policies' names (the CI stack makes them; `cdk bootstrap` names their ARNs). */
export const executionPolicyNames = (stage: DeployedStage): [string, string] => [
  `PetStore-cfn-exec-${stage}`,
  `PetStore-cfn-exec-${stage}-2`,
];

/** The CloudFormation tag every resource it creates and tags carries. */
export const STACK_NAME_TAG = 'aws:cloudformation:stack-name';

// Any region: a stage may deploy where PetStore-ci is not; names, not regions, keep stages apart.
const arn = (service: string, resource: string, region = '*', account: string = Aws.ACCOUNT_ID) =>
  `arn:${Aws.PARTITION}:${service}:${region}:${account}:${resource}`;

/** A service's actions, named without its prefix (space- or line-separated). */
const act = (service: string, names: string): string[] =>
  names
    .split(/\s+/)
    .filter(Boolean)
    .map((name) => `${service}:${name}`);

const allow = (actions: string[], resources: string[], conditions?: Record<string, unknown>) =>
  new PolicyStatement({ actions, resources, ...(conditions ? { conditions } : {}) });

/** The execution policy's two parts (each a managed policy under IAM's size limit). */
export const executionPolicyParts = (stage: DeployedStage): [PolicyStatement[], PolicyStatement[]] => {
  const name = stackName(stage);
  // S3 bucket names are lower case: CloudFormation generates `petstore-staging-…`; the canary is
  // named so too (infra/monitoring/canary.ts), and Synthetics names its function and layer after it.
  const lower = name.toLowerCase();
  const qualifier = BOOTSTRAP_QUALIFIERS[stage];
  const role = `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:role/${name}-*`;
  const withBoundary = { StringEquals: { 'iam:PermissionsBoundary': permissionsBoundaryArn(stage) } };
  const core = [
    // The template's BootstrapVersion parameter, and the function and canary code that this
    // stage's bootstrap holds (CreateFunction reads it with the caller's credentials).
    allow(['ssm:GetParameters'], [arn('ssm', `parameter/cdk-bootstrap/${qualifier}/version`)]),
    allow(
      ['s3:GetObject', 's3:GetObjectVersion'],
      [`arn:${Aws.PARTITION}:s3:::cdk-${qualifier}-assets-${Aws.ACCOUNT_ID}-*/*`],
    ),
    // AWS::IAM::Role, AWS::IAM::Policy (an inline policy of the role): generated names,
    // `PetStore-staging-…`. What gives a role rights, only to a role that carries the stage's
    // boundary: whatever policy a template writes, the role can do no more than the boundary.
    allow(
      act(
        'iam',
        `DeleteRole GetRole UpdateRole UpdateRoleDescription UpdateAssumeRolePolicy TagRole UntagRole
        ListRoleTags GetRolePolicy DeleteRolePolicy ListRolePolicies ListAttachedRolePolicies
        DetachRolePolicy`,
      ),
      [role],
    ),
    allow(['iam:CreateRole', 'iam:PutRolePolicy', 'iam:PutRolePermissionsBoundary'], [role], withBoundary),
    // The only managed policies our roles attach are AWS's service-role policies
    // (AWSCodeDeployRoleForLambdaLimited, AWSLambdaBasicExecutionRole): never AdministratorAccess.
    allow(['iam:AttachRolePolicy'], [role], {
      ...withBoundary,
      ArnLike: { 'iam:PolicyARN': `arn:${Aws.PARTITION}:iam::aws:policy/service-role/*` },
    }),
    // Its own roles only, to the functions (Lambda, Synthetics' canary) and CodeDeploy: never to
    // a service that would run something else with them (EC2, ECS…).
    allow(['iam:PassRole'], [role], {
      StringEquals: {
        'iam:PassedToService': ['lambda.amazonaws.com', 'synthetics.amazonaws.com', 'codedeploy.amazonaws.com'],
      },
    }),
    // AWS::Lambda::Function, ::Version, ::Alias, ::Permission; Synthetics makes the canary's
    // function and layer (`cwsyn-<canary name>-…`) with the caller's credentials.
    allow(
      act(
        'lambda',
        `CreateFunction DeleteFunction GetFunction GetFunctionConfiguration UpdateFunctionCode
        UpdateFunctionConfiguration PublishVersion ListVersionsByFunction CreateAlias
        UpdateAlias DeleteAlias GetAlias AddPermission RemovePermission GetPolicy
        PutFunctionConcurrency DeleteFunctionConcurrency GetFunctionConcurrency
        GetRuntimeManagementConfig PutRuntimeManagementConfig GetFunctionCodeSigningConfig
        GetFunctionRecursionConfig PutFunctionRecursionConfig TagResource UntagResource ListTags
        InvokeFunction`,
      ),
      [arn('lambda', `function:${name}-*`), arn('lambda', `function:cwsyn-${lower}-*`)],
    ),
    allow(
      ['lambda:PublishLayerVersion', 'lambda:GetLayerVersion', 'lambda:DeleteLayerVersion'],
      // A layer, and its versions (`…:<version>`).
      [arn('lambda', `layer:cwsyn-${lower}-*`), arn('lambda', `layer:cwsyn-${lower}-*:*`)],
    ),
    // Layers AWS publishes, one account per region (read only): the Synthetics runtimes' (the
    // browserless `syn-nodejs-*` ones are `AWS-CW-SyntheticsNodeJs`, the browsers' `Synthetics`
    // and `AWS-CW-SyntheticsNodeJs…`: "Test a canary locally"; the same patterns as AWS's
    // CloudWatchSyntheticsFullAccess), and the Parameters and Secrets extension's that listPets
    // uses (CDK's table of its ARNs: aws-cdk-lib/region-info). CreateFunction needs GetLayerVersion
    // on each layer version: https://docs.aws.amazon.com/lambda/latest/dg/adding-layers.html.
    allow(
      ['lambda:GetLayerVersion'],
      [
        `arn:${Aws.PARTITION}:lambda:*:*:layer:Synthetics*:*`,
        `arn:${Aws.PARTITION}:lambda:*:*:layer:AWS-CW-Synthetics*:*`,
        `arn:${Aws.PARTITION}:lambda:*:*:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:*`,
      ],
    ),
    // Synthetics' own library buckets (read only), which CloudWatchSyntheticsFullAccess grants to
    // those who create canaries (on `aws-synthetics-library-*`, which covers
    // its objects; named here as objects, which GetObjectVersion acts on).
    allow(['s3:GetObjectVersion'], [`arn:${Aws.PARTITION}:s3:::aws-synthetics-library-*/*`]),
    // AWS::DynamoDB::GlobalTable: generated names; its handler also reads and writes items
    // (it checks a replica before reporting it ready).
    allow(
      act(
        'dynamodb',
        `CreateTable DeleteTable DescribeTable UpdateTable CreateTableReplica DeleteTableReplica
        DescribeTimeToLive UpdateTimeToLive DescribeContinuousBackups UpdateContinuousBackups
        DescribeContributorInsights UpdateContributorInsights
        DescribeKinesisStreamingDestination DescribeTableReplicaAutoScaling
        UpdateTableReplicaAutoScaling GetResourcePolicy TagResource UntagResource
        ListTagsOfResource GetItem PutItem UpdateItem DeleteItem Query Scan BatchWriteItem`,
      ),
      [arn('dynamodb', `table/${name}-*`), arn('dynamodb', `table/${name}-*/*`)],
    ),
    // DynamoDB makes its replication service-linked role with the first global table of an
    // account ("DynamoDB global tables security":
    // https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/V2gt_IAM.html): that role only.
    allow(
      ['iam:CreateServiceLinkedRole'],
      [
        `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:role/aws-service-role/replication.dynamodb.amazonaws.com/AWSServiceRoleForDynamoDBReplication`,
      ],
      { StringEquals: { 'iam:AWSServiceName': 'replication.dynamodb.amazonaws.com' } },
    ),
    // AWS::Logs::LogGroup (generated names; API Gateway's execution log group is named by API
    // Gateway, `API-Gateway-Execution-Logs_<api id>/<stage name>`, the stage's name being its own),
    // AWS::Logs::MetricFilter (on the access log group). Logs evaluates most of these on the ARN
    // ending `:*`, its tagging actions on the one without. ListTagsForResource: not in the Log
    // group handler's list, but its update fails without it (NOAA-OWP/hydrovis#1035).
    allow(
      act(
        'logs',
        `CreateLogGroup DeleteLogGroup PutRetentionPolicy DeleteRetentionPolicy TagResource
        UntagResource ListTagsForResource TagLogGroup UntagLogGroup ListTagsLogGroup
        PutMetricFilter DeleteMetricFilter DescribeMetricFilters GetDataProtectionPolicy`,
      ),
      [
        arn('logs', `log-group:${name}-*`),
        arn('logs', `log-group:API-Gateway-Execution-Logs_*/${stage}`),
        arn('logs', `log-group:API-Gateway-Execution-Logs_*/${stage}:*`),
        arn('logs', `log-group:/aws/lambda/cwsyn-${lower}-*`),
      ],
    ),
    // Documented wildcards: actions IAM's service reference lists with no resource type, which a
    // policy can only grant on `*`. Listing log groups; AWS::Logs::QueryDefinition (a query
    // definition is no resource IAM names; ours are `PetStore-<stage>/…` and hold queries, no
    // data); creating a canary (its name is then the canary's ARN, below); stopping a CodeDeploy
    // deployment (which CloudFormation does when a release's alarm rolls it back); a random value
    // for GenerateSecretString. None of them reads or writes another stage's data.
    allow(
      [
        'logs:DescribeLogGroups',
        'logs:PutQueryDefinition',
        'logs:DeleteQueryDefinition',
        'logs:DescribeQueryDefinitions',
        'synthetics:CreateCanary',
        'codedeploy:StopDeployment',
        'secretsmanager:GetRandomPassword',
        // The GlobalTable handler's `dynamodb:Describe*`: account-level quotas and reservations;
        // its update reads the account's KMS aliases.
        'dynamodb:DescribeEndpoints',
        'dynamodb:DescribeLimits',
        'dynamodb:DescribeReservedCapacity',
        'dynamodb:DescribeReservedCapacityOfferings',
        'kms:ListAliases',
      ],
      ['*'],
    ),
  ];
  const rest = [
    // AWS::SecretsManager::Secret: all named `PetStore-<stage>/…`.
    allow(
      act(
        'secretsmanager',
        `CreateSecret DeleteSecret DescribeSecret UpdateSecret PutSecretValue GetSecretValue
        TagResource UntagResource`,
      ),
      [arn('secretsmanager', `secret:${name}/*`)],
    ),
    // AWS::ApiGateway::*: the API's, the usage plan's and the API key's ids are generated, and their ARNs hold
    // only the id, so no name narrows them (documented wildcard, region-wide): the deny below
    // keeps the execution role off what another stack owns.
    allow(
      ['apigateway:GET', 'apigateway:POST', 'apigateway:PUT', 'apigateway:PATCH', 'apigateway:DELETE'],
      [
        `arn:${Aws.PARTITION}:apigateway:*::/restapis`,
        `arn:${Aws.PARTITION}:apigateway:*::/restapis/*`,
        `arn:${Aws.PARTITION}:apigateway:*::/usageplans`,
        `arn:${Aws.PARTITION}:apigateway:*::/usageplans/*`,
        // The canary's API key (infra/constructs/read-key.ts): its id is generated too.
        `arn:${Aws.PARTITION}:apigateway:*::/apikeys`,
        `arn:${Aws.PARTITION}:apigateway:*::/apikeys/*`,
        `arn:${Aws.PARTITION}:apigateway:*::/tags/*`,
      ],
    ),
    // AWS::KMS::Key (the alarm topic's): CreateKey names no resource, and a key's id is made by
    // KMS (documented wildcard, with the same deny).
    allow(['kms:CreateKey'], ['*']),
    allow(
      act(
        'kms',
        `DescribeKey GetKeyPolicy PutKeyPolicy GetKeyRotationStatus EnableKeyRotation
        DisableKeyRotation UpdateKeyDescription ScheduleKeyDeletion TagResource UntagResource
        ListResourceTags EnableKey DisableKey`,
      ),
      [arn('kms', 'key/*')],
    ),
    // AWS::SNS::Topic, ::TopicPolicy, ::Subscription: generated name; a subscription's ARN is its topic's and an id.
    allow(
      act(
        'sns',
        `CreateTopic DeleteTopic GetTopicAttributes SetTopicAttributes TagResource UntagResource
        ListTagsForResource Subscribe Unsubscribe GetSubscriptionAttributes
        SetSubscriptionAttributes ListSubscriptionsByTopic GetDataProtectionPolicy`,
      ),
      [arn('sns', `${name}-*`), arn('sns', `${name}-*:*`)],
    ),
    // AWS::CloudWatch::Alarm, ::CompositeAlarm (named `PetStore-<stage>-…`), ::Dashboard (`PetStore-<stage>`).
    allow(
      act(
        'cloudwatch',
        `PutMetricAlarm PutCompositeAlarm DeleteAlarms DescribeAlarms TagResource UntagResource
        ListTagsForResource`,
      ),
      [arn('cloudwatch', `alarm:${name}-*`)],
    ),
    allow(
      ['cloudwatch:PutDashboard', 'cloudwatch:GetDashboard', 'cloudwatch:DeleteDashboards'],
      [arn('cloudwatch', `dashboard/${name}`, '')],
    ),
    // AWS::CodeDeploy::Application (`PetStore-<stage>`), ::DeploymentGroup (under it),
    // ::DeploymentConfig (`PetStore-<stage>-…`); and the deployment CloudFormation starts when a
    // function's live alias moves (the alias's CodeDeployLambdaAliasUpdate).
    allow(
      act(
        'codedeploy',
        `CreateApplication DeleteApplication GetApplication UpdateApplication
        RegisterApplicationRevision GetApplicationRevision CreateDeploymentGroup
        DeleteDeploymentGroup GetDeploymentGroup UpdateDeploymentGroup CreateDeploymentConfig
        DeleteDeploymentConfig GetDeploymentConfig CreateDeployment GetDeployment TagResource
        UntagResource ListTagsForResource`,
      ),
      [
        arn('codedeploy', `application:${name}`),
        arn('codedeploy', `deploymentgroup:${name}/*`),
        arn('codedeploy', `deploymentconfig:${name}-*`),
      ],
    ),
    // AWS::S3::Bucket, ::BucketPolicy: the canary's artifacts, a generated `petstore-<stage>-…` name.
    allow(
      act(
        's3',
        `CreateBucket DeleteBucket ListBucket GetBucketLocation GetBucketPolicy PutBucketPolicy
        DeleteBucketPolicy GetEncryptionConfiguration PutEncryptionConfiguration
        GetBucketPublicAccessBlock PutBucketPublicAccessBlock GetLifecycleConfiguration
        PutLifecycleConfiguration GetBucketOwnershipControls PutBucketOwnershipControls
        GetBucketVersioning PutBucketVersioning GetBucketTagging PutBucketTagging`,
      ),
      [`arn:${Aws.PARTITION}:s3:::${lower}-*`],
    ),
    // Its objects, which the bucket's handler empties.
    allow(['s3:DeleteObject'], [`arn:${Aws.PARTITION}:s3:::${lower}-*/*`]),
    // AWS::Synthetics::Canary: named like the stack, in lower case.
    allow(
      act(
        'synthetics',
        `DeleteCanary UpdateCanary GetCanary GetCanaryRuns StartCanary StopCanary TagResource
        UntagResource ListTagsForResource`,
      ),
      [arn('synthetics', `canary:${lower}`)],
    ),
    // What the wildcards above cannot narrow (API Gateway, KMS): never a resource another
    // CloudFormation stack made and tagged (the other stage's API, usage plan and key; the CI
    // stack; the bootstraps).
    new PolicyStatement({
      effect: Effect.DENY,
      actions: ['apigateway:*', 'kms:*'],
      resources: ['*'],
      conditions: {
        Null: { [`aws:ResourceTag/${STACK_NAME_TAG}`]: 'false' },
        StringNotEquals: { [`aws:ResourceTag/${STACK_NAME_TAG}`]: name },
      },
    }),
    // API keys are the account's: the key tool's carry no CloudFormation tag, only their stage's
    // (STAGE_TAG), and none of the other stage's is this deploy's to read, change, import or delete.
    new PolicyStatement({
      effect: Effect.DENY,
      actions: ['apigateway:*'],
      resources: ['*'],
      conditions: {
        Null: { [`aws:ResourceTag/${STAGE_TAG}`]: 'false' },
        StringNotEquals: { [`aws:ResourceTag/${STAGE_TAG}`]: stage },
      },
    }),
    ...boundaryEnforcement(stage),
  ];
  return [core, rest];
};
