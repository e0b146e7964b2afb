// The permissions boundary of every role a stage's stack creates: the most any of them may ever
// do, whatever policy a template gives it. A boundary caps a role's identity-based policies (and
// what resource policies grant the role's ARN) to the intersection ("Permissions boundaries for
// IAM entities": https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies_boundaries.html).
// With it, the stage's execution role, which may create roles and hand them to Lambda, cannot
// make a role that reaches IAM, another stage's data or anything outside its own resources: the
// execution policy lets CloudFormation create or change a role only with this boundary on it
// (infra/ci/execution-policy.ts). PetStore-ci makes it, so a stage's own deploy cannot widen it.
// test/cdk/permissions-boundary.test.ts checks that every role's own policies fit inside it.
import { Aws } from 'aws-cdk-lib';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { type DeployedStage, stackName } from '../stages.ts';

/** The managed policy's name; the stage's stack names it by ARN (infra/pet-store-stack.ts). */
export const permissionsBoundaryName = (stage: DeployedStage): string => `PetStore-boundary-${stage}`;

/** Its ARN in the account a stack deploys to (a token: the account the deploy names). */
export const permissionsBoundaryArn = (stage: DeployedStage): string =>
  `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:policy/${permissionsBoundaryName(stage)}`;

/** In any region: the boundary is made once per account, and names, not regions, keep stages apart. */
const arn = (service: string, resource: string) => `arn:${Aws.PARTITION}:${service}:*:${Aws.ACCOUNT_ID}:${resource}`;

export const permissionsBoundaryStatements = (stage: DeployedStage): PolicyStatement[] => {
  const name = stackName(stage);
  const lower = name.toLowerCase();
  const allow = (actions: string[], resources: string[]) => new PolicyStatement({ actions, resources });
  return [
    // The functions' items (shared/api/routes.ts lists each one's calls) and the key minter's.
    allow(
      [
        'dynamodb:GetItem',
        'dynamodb:BatchGetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
        'dynamodb:BatchWriteItem',
        'dynamodb:ConditionCheckItem',
        'dynamodb:Query',
        'dynamodb:Scan',
        'dynamodb:DescribeTable',
      ],
      [arn('dynamodb', `table/${name}-*`), arn('dynamodb', `table/${name}-*/index/*`)],
    ),
    // The cursor secret, the release probe's and the canary's keys (the minter moves their versions).
    allow(
      [
        'secretsmanager:GetSecretValue',
        'secretsmanager:DescribeSecret',
        'secretsmanager:PutSecretValue',
        'secretsmanager:ListSecretVersionIds',
        'secretsmanager:UpdateSecretVersionStage',
      ],
      [arn('secretsmanager', `secret:${name}/*`)],
    ),
    // Their logs: the stack's log groups, Lambda's default ones for the stack's functions
    // (CDK's custom resource provider), and the canary's (Synthetics names them `cwsyn-<canary>-…`).
    allow(
      ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'],
      [
        arn('logs', `log-group:${name}-*`),
        arn('logs', `log-group:/aws/lambda/${name}-*`),
        arn('logs', `log-group:/aws/lambda/cwsyn-${lower}-*`),
      ],
    ),
    // CodeDeploy's service role (AWSCodeDeployRoleForLambdaLimited) on the stage's functions
    // and alarms; the release hooks answer CodeDeploy and invoke the new versions.
    allow(
      ['lambda:InvokeFunction', 'lambda:GetAlias', 'lambda:UpdateAlias', 'lambda:GetProvisionedConcurrencyConfig'],
      [arn('lambda', `function:${name}-*`)],
    ),
    allow(['cloudwatch:DescribeAlarms'], [arn('cloudwatch', `alarm:${name}-*`)]),
    // The canary's artifacts; CDK's auto-delete empties the bucket (its bucket policy names the role).
    allow(
      [
        's3:GetObject',
        's3:PutObject',
        's3:DeleteObject',
        's3:DeleteObjectVersion',
        's3:ListBucket',
        's3:ListBucketVersions',
        's3:GetBucketLocation',
        's3:GetBucketTagging',
        's3:PutBucketPolicy',
      ],
      [`arn:${Aws.PARTITION}:s3:::${lower}-*`, `arn:${Aws.PARTITION}:s3:::${lower}-*/*`],
    ),
    // Actions IAM grants on `*` only: traces, the canary's bucket listing, a release hook's answer
    // to CodeDeploy (its resource: the deployment, by id).
    allow(
      [
        'xray:PutTraceSegments',
        'xray:PutTelemetryRecords',
        's3:ListAllMyBuckets',
        'codedeploy:PutLifecycleEventHookExecutionStatus',
      ],
      ['*'],
    ),
    // The canary's metrics, in Synthetics' namespace only: a metric has no ARN, its namespace is
    // all IAM can tell apart (cloudwatch:namespace), and a role that could publish into
    // `PetStore/<other stage>` could fire that stage's alarms and roll back its releases. The
    // functions' metrics go through their logs (EMF), never PutMetricData.
    new PolicyStatement({
      actions: ['cloudwatch:PutMetricData'],
      resources: ['*'],
      conditions: { StringEquals: { 'cloudwatch:namespace': 'CloudWatchSynthetics' } },
    }),
  ];
};

/**
 * The execution policy's side (infra/ci/execution-policy.ts): whatever else allows it, no role
 * is created, given a policy or a boundary unless the boundary is the stage's, and none loses it
 * ("Delegating permissions management to others by using permissions boundaries":
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies_boundaries.html#access_policies_boundaries-delegate).
 */
export const boundaryEnforcement = (stage: DeployedStage): PolicyStatement[] => [
  new PolicyStatement({
    effect: Effect.DENY,
    actions: ['iam:CreateRole', 'iam:PutRolePolicy', 'iam:AttachRolePolicy', 'iam:PutRolePermissionsBoundary'],
    resources: ['*'],
    conditions: { StringNotEquals: { 'iam:PermissionsBoundary': permissionsBoundaryArn(stage) } },
  }),
  new PolicyStatement({ effect: Effect.DENY, actions: ['iam:DeleteRolePermissionsBoundary'], resources: ['*'] }),
];
