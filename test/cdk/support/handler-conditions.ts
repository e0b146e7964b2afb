// Handler permissions that serve one optional property: a handler calls them only to set (or
// clear) what that property describes, as each type's reference says of the property
// (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-template-resource-type-ref.html).
// A resource without the property is not tried on them (support/handler-permissions.ts); with it,
// it is, so a template that gains the property needs the permission. Written from the property
// references, not from the execution policy.

interface Optional {
  /** Properties (`X`, `X.Y`, `Replicas[].X`): any of them present makes the actions needed. */
  properties: string[];
  actions: string[];
}

const KMS_USE = [
  'kms:CreateGrant',
  'kms:Decrypt',
  'kms:Encrypt',
  'kms:GenerateDataKey',
  'kms:DescribeKey',
  'kms:RevokeGrant',
  'kms:ListAliases',
];
const VPC = ['ec2:DescribeSecurityGroups', 'ec2:DescribeSubnets', 'ec2:DescribeVpcs', 'ec2:DescribeNetworkInterfaces'];
const PROVISIONED_CONCURRENCY = [
  'lambda:PutProvisionedConcurrencyConfig',
  'lambda:GetProvisionedConcurrencyConfig',
  'lambda:DeleteProvisionedConcurrencyConfig',
];

const OPTIONAL: Record<string, Optional[]> = {
  'AWS::Lambda::Function': [
    { properties: ['VpcConfig'], actions: VPC },
    { properties: ['FileSystemConfigs'], actions: ['elasticfilesystem:DescribeMountTargets'] },
    { properties: ['KmsKeyArn'], actions: KMS_USE },
    {
      properties: ['CodeSigningConfigArn'],
      actions: [
        'lambda:GetCodeSigningConfig',
        'lambda:PutFunctionCodeSigningConfig',
        'lambda:DeleteFunctionCodeSigningConfig',
      ],
    },
  ],
  'AWS::Lambda::Version': [{ properties: ['ProvisionedConcurrencyConfig'], actions: PROVISIONED_CONCURRENCY }],
  'AWS::Lambda::Alias': [{ properties: ['ProvisionedConcurrencyConfig'], actions: PROVISIONED_CONCURRENCY }],
  'AWS::Synthetics::Canary': [{ properties: ['VpcConfig'], actions: VPC }],
  'AWS::DynamoDB::GlobalTable': [
    {
      properties: ['Replicas[].KinesisStreamSpecification'],
      actions: [
        'dynamodb:EnableKinesisStreamingDestination',
        'dynamodb:DisableKinesisStreamingDestination',
        'dynamodb:UpdateKinesisStreamingDestination',
        'kinesis:DescribeStream',
        'kinesis:ListStreams',
        'kinesis:PutRecords',
      ],
    },
    {
      properties: ['Replicas[].ResourcePolicy'],
      actions: ['dynamodb:PutResourcePolicy', 'dynamodb:DeleteResourcePolicy'],
    },
    { properties: ['SSESpecification'], actions: KMS_USE },
    {
      // Auto scaling of a provisioned table's capacity.
      properties: ['WriteProvisionedThroughputSettings', 'Replicas[].ReadProvisionedThroughputSettings'],
      actions: [
        'application-autoscaling:DeleteScalingPolicy',
        'application-autoscaling:DeleteScheduledAction',
        'application-autoscaling:DeregisterScalableTarget',
        'application-autoscaling:PutScalingPolicy',
        'application-autoscaling:PutScheduledAction',
        'application-autoscaling:RegisterScalableTarget',
        'application-autoscaling:DescribeScalableTargets',
        'application-autoscaling:DescribeScalingActivities',
        'application-autoscaling:DescribeScalingPolicies',
        'application-autoscaling:DescribeScheduledActions',
        'cloudwatch:PutMetricData',
      ],
    },
  ],
  'AWS::SecretsManager::Secret': [
    {
      properties: ['ReplicaRegions'],
      actions: ['secretsmanager:ReplicateSecretToRegions', 'secretsmanager:RemoveRegionsFromReplication'],
    },
  ],
  'AWS::Logs::LogGroup': [
    { properties: ['KmsKeyId'], actions: ['logs:AssociateKmsKey', 'logs:DisassociateKmsKey'] },
    {
      properties: ['DataProtectionPolicy'],
      actions: ['logs:PutDataProtectionPolicy', 'logs:DeleteDataProtectionPolicy'],
    },
    {
      // A log group's own resource policy, and the deliveries a policy's vended logs need.
      properties: ['ResourcePolicyDocument'],
      actions: [
        'logs:PutResourcePolicy',
        'logs:DescribeResourcePolicies',
        'logs:CreateLogDelivery',
        'firehose:TagDeliveryStream',
      ],
    },
  ],
  'AWS::IAM::Role': [{ properties: ['ManagedPolicyArns'], actions: ['iam:AttachRolePolicy', 'iam:DetachRolePolicy'] }],
  'AWS::S3::Bucket': [
    { properties: ['AnalyticsConfigurations'], actions: ['s3:PutAnalyticsConfiguration'] },
    { properties: ['CorsConfiguration'], actions: ['s3:PutBucketCORS'] },
    { properties: ['InventoryConfigurations'], actions: ['s3:PutInventoryConfiguration'] },
    { properties: ['MetricsConfigurations'], actions: ['s3:PutMetricsConfiguration'] },
    { properties: ['NotificationConfiguration'], actions: ['s3:PutBucketNotification'] },
    { properties: ['WebsiteConfiguration'], actions: ['s3:PutBucketWebsite', 's3:DeleteBucketWebsite'] },
    { properties: ['AccelerateConfiguration'], actions: ['s3:PutAccelerateConfiguration'] },
    { properties: ['ReplicationConfiguration'], actions: ['s3:PutReplicationConfiguration', 'iam:PassRole'] },
    { properties: ['AccessControl'], actions: ['s3:PutBucketAcl', 's3:PutObjectAcl', 's3:GetBucketAcl'] },
    { properties: ['ObjectLockConfiguration', 'ObjectLockEnabled'], actions: ['s3:PutBucketObjectLockConfiguration'] },
    { properties: ['LoggingConfiguration'], actions: ['s3:PutBucketLogging'] },
    { properties: ['IntelligentTieringConfigurations'], actions: ['s3:PutIntelligentTieringConfiguration'] },
  ],
  'AWS::ApiGateway::RestApi': [
    { properties: ['Policy'], actions: ['apigateway:UpdateRestApiPolicy'] },
    { properties: ['BodyS3Location'], actions: ['s3:GetObject'] },
  ],
  'AWS::ApiGateway::Authorizer': [{ properties: ['AuthorizerCredentials'], actions: ['iam:PassRole'] }],
  'AWS::ApiGateway::Method': [{ properties: ['Integration.Credentials'], actions: ['iam:PassRole'] }],
  'AWS::SNS::Topic': [
    { properties: ['DeliveryStatusLogging'], actions: ['iam:GetRole', 'iam:PassRole'] },
    { properties: ['DataProtectionPolicy'], actions: ['sns:PutDataProtectionPolicy'] },
  ],
};

/** Whether `Replicas[].X`, `Integration.X` or `X` is set. */
const present = (properties: Record<string, unknown>, path: string): boolean => {
  const list = /^(\w+)\[\]\.(\w+)$/.exec(path);
  if (list !== null)
    return ((properties[list[1]!] ?? []) as Record<string, unknown>[]).some((item) => item[list[2]!] !== undefined);
  const value = path
    .split('.')
    .reduce<unknown>((o, key) => (o as Record<string, unknown> | undefined)?.[key], properties);
  return value !== undefined;
};

/** Why `action` is not needed for this resource, or undefined when it may be. */
export const conditionsOf = (type: string, action: string, properties: Record<string, unknown>): string | undefined => {
  const optional = (OPTIONAL[type] ?? []).find((o) => o.actions.includes(action));
  if (optional === undefined || optional.properties.some((p) => present(properties, p))) return undefined;
  return `only with ${optional.properties.join(' or ')}, which the template does not set`;
};
