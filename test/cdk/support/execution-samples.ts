// Hand-written extra cases of what CloudFormation calls for each resource type of a stage, on the
// names it makes for that stage: test/cdk/execution-policy.test.ts simulates them, allowed by that
// stage's execution policy and denied by the other stage's. The oracle is AWS's data:
// test/cdk/execution-policy-coverage.test.ts derives every handler permission from the registry's
// schemas and IAM's ARN formats.
import { STACK_NAME_TAG } from '../../../infra/ci/execution-policy.ts';
import { permissionsBoundaryName } from '../../../infra/ci/permissions-boundary.ts';
import { BOOTSTRAP_QUALIFIERS } from '../../../infra/stage-deployment.ts';
import { type DeployedStage, stackName } from '../../../infra/stages.ts';
import { TEST_ENV } from './synth.ts';

const { account: ACCOUNT, region: REGION } = TEST_ENV;

export interface Sample {
  action: string;
  resource: string;
  context?: Record<string, string | string[]>;
  /** A KMS key's own policy: KMS needs it to allow (ours lets the account's IAM policies decide). */
  resourcePolicy?: unknown;
}

/**
 * What CloudFormation calls for each resource type, on the physical names it makes for `stage`:
 * generated names start with the stack's name (and a random suffix); S3 and the canary are in lower
 * case; API Gateway's ids are generated and carry the stack's aws:cloudformation:stack-name tag,
 * which its child resources inherit for access control
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-tagging-supported-resources.html).
 */
export const samples = (stage: DeployedStage, keyPolicy: unknown): Record<string, Sample[]> => {
  const name = stackName(stage);
  const lower = name.toLowerCase();
  const arn = (service: string, resource: string) => `arn:aws:${service}:${REGION}:${ACCOUNT}:${resource}`;
  const tagged = { [`aws:ResourceTag/${STACK_NAME_TAG}`]: name };
  const api = (path: string, action = 'apigateway:PATCH'): Sample => ({
    action,
    resource: `arn:aws:apigateway:${REGION}::/restapis/a1b2c3d4e5${path}`,
    context: tagged,
  });
  const table = arn('dynamodb', `table/${name}-Datapets454A4EB8-1Q2W3E4R5T6Y`);
  const fn = arn('lambda', `function:${name}-FunctionslistPetsFunction0FA-AbCdEfGh1234`);
  const role = `arn:aws:iam::${ACCOUNT}:role/${name}-FunctionslistPetsRole8A4B-AbCdEfGh1234`;
  // The stage's boundary, which every role of the stage carries (infra/ci/permissions-boundary.ts).
  const bounded = { 'iam:PermissionsBoundary': `arn:aws:iam::${ACCOUNT}:policy/${permissionsBoundaryName(stage)}` };
  const logGroup = arn('logs', `log-group:${name}-FunctionslistPetsLogs8C9B1152-AbCdEfGh1234`);
  const topic = arn('sns', `${name}-MonitoringAlarmTopic40534090-AbCdEfGh1234`);
  const key = arn('kms', 'key/1234abcd-12ab-34cd-56ef-1234567890ab');
  const codedeploy = (resource: string) => arn('codedeploy', resource);
  const bucket = `arn:aws:s3:::${lower}-watchsmokecanaryartifacts2d65-abcdefgh1234`;
  return {
    'AWS::DynamoDB::GlobalTable': [
      { action: 'dynamodb:CreateTable', resource: table },
      { action: 'dynamodb:UpdateTable', resource: table },
      { action: 'dynamodb:UpdateContinuousBackups', resource: table },
      { action: 'dynamodb:DeleteTable', resource: table },
    ],
    'AWS::IAM::Role': [
      { action: 'iam:CreateRole', resource: role, context: bounded },
      { action: 'iam:DeleteRole', resource: role },
      { action: 'iam:PassRole', resource: role, context: { 'iam:PassedToService': 'lambda.amazonaws.com' } },
      { action: 'iam:PassRole', resource: role, context: { 'iam:PassedToService': 'codedeploy.amazonaws.com' } },
      {
        action: 'iam:AttachRolePolicy',
        resource: role,
        context: {
          ...bounded,
          'iam:PolicyARN': 'arn:aws:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited',
        },
      },
    ],
    'AWS::IAM::Policy': [
      { action: 'iam:PutRolePolicy', resource: role, context: bounded },
      { action: 'iam:DeleteRolePolicy', resource: role },
    ],
    'AWS::Lambda::Function': [
      { action: 'lambda:CreateFunction', resource: fn },
      { action: 'lambda:UpdateFunctionCode', resource: fn },
      { action: 'lambda:PutFunctionConcurrency', resource: fn },
      { action: 'lambda:DeleteFunction', resource: fn },
      // The code, from the stage's own bootstrap bucket.
      {
        action: 's3:GetObject',
        resource: `arn:aws:s3:::cdk-${BOOTSTRAP_QUALIFIERS[stage]}-assets-${ACCOUNT}-${REGION}/0a1b2c.zip`,
      },
    ],
    'AWS::Lambda::Version': [{ action: 'lambda:PublishVersion', resource: fn }],
    'AWS::Lambda::Alias': [
      { action: 'lambda:CreateAlias', resource: `${fn}:live` },
      { action: 'lambda:UpdateAlias', resource: `${fn}:live` },
    ],
    'AWS::Lambda::Permission': [{ action: 'lambda:AddPermission', resource: `${fn}:live` }],
    'AWS::Logs::LogGroup': [
      { action: 'logs:CreateLogGroup', resource: logGroup },
      { action: 'logs:PutRetentionPolicy', resource: logGroup },
      { action: 'logs:DeleteLogGroup', resource: logGroup },
      // Named by API Gateway after the API's id and the stage's name.
      {
        action: 'logs:CreateLogGroup',
        resource: arn('logs', `log-group:API-Gateway-Execution-Logs_a1b2c3d4e5/${stage}`),
      },
    ],
    'AWS::Logs::MetricFilter': [
      { action: 'logs:PutMetricFilter', resource: arn('logs', `log-group:${name}-ApiAccessLogs50B185DB-AbCdEfGh1234`) },
    ],
    'AWS::SecretsManager::Secret': [
      {
        action: 'secretsmanager:CreateSecret',
        resource: arn('secretsmanager', `secret:${name}/cursor-secret-1-AbCdEf`),
      },
      {
        action: 'secretsmanager:PutSecretValue',
        resource: arn('secretsmanager', `secret:${name}/smoke-canary-key-AbCdEf`),
      },
      {
        action: 'secretsmanager:DeleteSecret',
        resource: arn('secretsmanager', `secret:${name}/release-probe-key-AbCdEf`),
      },
    ],
    'AWS::ApiGateway::RestApi': [api(''), api('', 'apigateway:DELETE')],
    // (POST on …/deployments: the simulator's data names no resource type for it.)
    'AWS::ApiGateway::Deployment': [api('/deployments/dep123', 'apigateway:DELETE'), api('/deployments/dep123')],
    'AWS::ApiGateway::Stage': [api(`/stages/${stage}`)],
    'AWS::ApiGateway::Resource': [api('/resources/abc123', 'apigateway:DELETE')],
    'AWS::ApiGateway::Method': [api('/resources/abc123/methods/GET', 'apigateway:PUT')],
    'AWS::ApiGateway::GatewayResponse': [api('/gatewayresponses/DEFAULT_4XX', 'apigateway:PUT')],
    'AWS::ApiGateway::Authorizer': [api('/authorizers/xyz789')],
    'AWS::ApiGateway::UsagePlan': [
      { action: 'apigateway:PATCH', resource: `arn:aws:apigateway:${REGION}::/usageplans/u1v2w3`, context: tagged },
    ],
    // The canary's own API key in the usage plan (infra/constructs/read-key.ts).
    'AWS::ApiGateway::ApiKey': [
      { action: 'apigateway:POST', resource: `arn:aws:apigateway:${REGION}::/apikeys`, context: tagged },
      { action: 'apigateway:DELETE', resource: `arn:aws:apigateway:${REGION}::/apikeys/k1l2m3`, context: tagged },
    ],
    'AWS::ApiGateway::UsagePlanKey': [
      { action: 'apigateway:POST', resource: `arn:aws:apigateway:${REGION}::/usageplans/u1v2w3/keys`, context: tagged },
    ],
    // Custom resources: CloudFormation invokes their function with this role.
    'Custom::PetStoreReadKey': [
      { action: 'lambda:InvokeFunction', resource: arn('lambda', `function:${name}-ReadKeysFunction5A1B2C3D-AbCdEf`) },
    ],
    'Custom::S3AutoDeleteObjects': [
      {
        action: 'lambda:InvokeFunction',
        resource: arn('lambda', `function:${name}-CustomS3AutoDeleteObjectsCustomR-AbCdEfGh1234`),
      },
    ],
    'AWS::KMS::Key': ['kms:PutKeyPolicy', 'kms:EnableKeyRotation', 'kms:ScheduleKeyDeletion'].map((action) => ({
      action,
      resource: key,
      context: tagged,
      resourcePolicy: keyPolicy,
    })),
    'AWS::SNS::Topic': [
      { action: 'sns:CreateTopic', resource: topic },
      { action: 'sns:Subscribe', resource: topic },
      { action: 'sns:DeleteTopic', resource: topic },
    ],
    'AWS::SNS::TopicPolicy': [{ action: 'sns:SetTopicAttributes', resource: topic }],
    // IAM's service reference gives sns:Unsubscribe the topic as its resource.
    'AWS::SNS::Subscription': [
      { action: 'sns:Subscribe', resource: topic },
      { action: 'sns:Unsubscribe', resource: topic },
    ],
    'AWS::CloudWatch::Alarm': [
      { action: 'cloudwatch:PutMetricAlarm', resource: arn('cloudwatch', `alarm:${name}-Api5xxRate`) },
      { action: 'cloudwatch:DeleteAlarms', resource: arn('cloudwatch', `alarm:${name}-Api5xxRate`) },
    ],
    'AWS::CloudWatch::CompositeAlarm': [
      { action: 'cloudwatch:PutCompositeAlarm', resource: arn('cloudwatch', `alarm:${name}-SloFastBurn-latency`) },
    ],
    'AWS::CloudWatch::Dashboard': [
      { action: 'cloudwatch:PutDashboard', resource: `arn:aws:cloudwatch::${ACCOUNT}:dashboard/${name}` },
    ],
    'AWS::CodeDeploy::Application': [
      { action: 'codedeploy:CreateApplication', resource: codedeploy(`application:${name}`) },
    ],
    'AWS::CodeDeploy::DeploymentConfig': [
      {
        action: 'codedeploy:CreateDeploymentConfig',
        resource: codedeploy(`deploymentconfig:${name}-Canary10Percent5Minutes`),
      },
    ],
    'AWS::CodeDeploy::DeploymentGroup': [
      {
        action: 'codedeploy:CreateDeploymentGroup',
        resource: codedeploy(`deploymentgroup:${name}/${name}-DeploymentlistPets7178-AbCdEf`),
      },
      // The deployment CloudFormation starts when a live alias moves.
      {
        action: 'codedeploy:CreateDeployment',
        resource: codedeploy(`deploymentgroup:${name}/${name}-DeploymentlistPets7178-AbCdEf`),
      },
    ],
    'AWS::S3::Bucket': [
      { action: 's3:CreateBucket', resource: bucket },
      { action: 's3:PutLifecycleConfiguration', resource: bucket },
      { action: 's3:DeleteBucket', resource: bucket },
    ],
    'AWS::S3::BucketPolicy': [{ action: 's3:PutBucketPolicy', resource: bucket }],
    'AWS::Synthetics::Canary': [
      { action: 'synthetics:UpdateCanary', resource: arn('synthetics', `canary:${lower}`) },
      { action: 'synthetics:StartCanary', resource: arn('synthetics', `canary:${lower}`) },
      // Synthetics makes the canary's function and layer with the caller's credentials.
      { action: 'lambda:CreateFunction', resource: arn('lambda', `function:cwsyn-${lower}-0a1b2c3d`) },
      { action: 'lambda:PublishLayerVersion', resource: arn('lambda', `layer:cwsyn-${lower}-0a1b2c3d`) },
    ],
  };
};

/**
 * Actions IAM cannot narrow to a stage (infra/ci/execution-policy.ts): the ones IAM's service
 * reference lists with no resource type, so a policy must name `*` (a query definition's: saved
 * queries, no data; creating a canary; stopping a CodeDeploy deployment), and DynamoDB's one
 * replication role of the account.
 */
export const UNSCOPED: Record<string, Sample[]> = {
  'AWS::DynamoDB::GlobalTable': [
    {
      action: 'iam:CreateServiceLinkedRole',
      resource: `arn:aws:iam::${ACCOUNT}:role/aws-service-role/replication.dynamodb.amazonaws.com/AWSServiceRoleForDynamoDBReplication`,
      context: { 'iam:AWSServiceName': 'replication.dynamodb.amazonaws.com' },
    },
  ],
  'AWS::Logs::QueryDefinition': [{ action: 'logs:PutQueryDefinition', resource: '*' }],
  'AWS::Synthetics::Canary': [{ action: 'synthetics:CreateCanary', resource: '*' }],
  'AWS::CodeDeploy::DeploymentGroup': [{ action: 'codedeploy:StopDeployment', resource: '*' }],
};
