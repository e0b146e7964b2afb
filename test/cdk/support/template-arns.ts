// The ARNs a deployed template's resources will have, from the template alone: names the template
// gives, or the name CloudFormation generates when it gives none (`<stack>-<logical id>-<random>`,
// "Name type": https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-properties-name.html;
// S3 in lower case), and ids services make (API Gateway's, KMS's) as made-up ids. What
// support/handler-permissions.ts tries each handler permission on.
import { STACK_NAME_TAG } from '../../../infra/ci/execution-policy.ts';
import type { CfnTemplate } from './synth.ts';
import { TEST_ENV } from './synth.ts';

const { account: ACCOUNT, region: REGION } = TEST_ENV;

export interface Own {
  arn: string;
  context: Record<string, string | string[]>;
  /** An ARN the resource makes beside its own (not one that naming the resource names). */
  madeAlongside?: true;
  /** Context that only some actions carry (iam:PolicyARN on AttachRolePolicy…). */
  contextFor?: (action: string) => Record<string, string | string[]>;
  resourcePolicy?: unknown;
}

const RANDOM = 'AbCdEfGh1234';
const generated = (stack: string, id: string, max: number) =>
  `${stack}-${id.slice(0, Math.max(1, max - stack.length - RANDOM.length - 2))}-${RANDOM}`;
/** A made-up id for what a service names (10 characters, as API Gateway's). */
const madeUpId = (id: string) =>
  [...id]
    .reduce((hash, c) => (hash * 31 + c.charCodeAt(0)) >>> 0, 7)
    .toString(36)
    .padStart(10, 'x')
    .slice(0, 10);

const arn = (service: string, resource: string) => `arn:aws:${service}:${REGION}:${ACCOUNT}:${resource}`;

/** What `Ref` of a resource returns, as the deploy would have it. */
const refOf = (template: CfnTemplate, stack: string, id: string): string => {
  const resource = template.Resources[id];
  if (resource === undefined) {
    const pseudo: Record<string, string> = {
      'AWS::Partition': 'aws',
      'AWS::AccountId': ACCOUNT,
      'AWS::Region': REGION,
      'AWS::StackName': stack,
      'AWS::URLSuffix': 'amazonaws.com',
    };
    if (id in pseudo) return pseudo[id]!;
    throw new Error(`Ref ${id}: no such resource`);
  }
  const p = resource.Properties ?? {};
  const name = (property: string, max: number) =>
    p[property] === undefined ? generated(stack, id, max) : resolveString(template, stack, p[property]);
  switch (resource.Type) {
    case 'AWS::Lambda::Function':
      return name('FunctionName', 64);
    case 'AWS::IAM::Role':
      return name('RoleName', 64);
    case 'AWS::Logs::LogGroup':
      return name('LogGroupName', 512);
    case 'AWS::DynamoDB::GlobalTable':
    case 'AWS::DynamoDB::Table':
      return name('TableName', 255);
    case 'AWS::SecretsManager::Secret':
      return arn('secretsmanager', `secret:${name('Name', 512)}-AbCdEf`);
    case 'AWS::SNS::Topic':
      return arn('sns', name('TopicName', 256));
    case 'AWS::S3::Bucket':
      return name('BucketName', 63).toLowerCase();
    case 'AWS::CloudWatch::Alarm':
    case 'AWS::CloudWatch::CompositeAlarm':
      return name('AlarmName', 255);
    case 'AWS::CodeDeploy::Application':
      return name('ApplicationName', 100);
    case 'AWS::CodeDeploy::DeploymentConfig':
      return name('DeploymentConfigName', 100);
    case 'AWS::CodeDeploy::DeploymentGroup':
      return name('DeploymentGroupName', 100);
    case 'AWS::Synthetics::Canary':
      return resolveString(template, stack, p.Name);
    case 'AWS::ApiGateway::Stage':
      return resolveString(template, stack, p.StageName);
    case 'AWS::Lambda::Alias':
      return `${arn('lambda', `function:${resolveString(template, stack, p.FunctionName)}`)}:${p.Name}`;
    case 'AWS::Lambda::Version':
      return `${arn('lambda', `function:${resolveString(template, stack, p.FunctionName)}`)}:1`;
    case 'AWS::KMS::Key':
      return '1234abcd-12ab-34cd-56ef-1234567890ab';
    default:
      // API Gateway's ids, a custom resource's physical id.
      return madeUpId(id);
  }
};

/** What `Fn::GetAtt` returns: an ARN, or the attributes our templates read. */
const getAttOf = (template: CfnTemplate, stack: string, id: string, attribute: string): string => {
  const type = template.Resources[id]?.Type;
  if (attribute === 'Arn') return arnsOf(template, stack, id)[0]!.arn.replace(/:\*$/, '');
  if (type === 'AWS::Synthetics::Canary' && attribute === 'Id') return '0a1b2c3d-0a1b-0a1b-0a1b-0a1b2c3d4e5f';
  if (type === 'AWS::ApiGateway::RestApi' && attribute === 'RootResourceId') return madeUpId(`${id}root`);
  if (type === 'AWS::Lambda::Version' && attribute === 'Version') return '1';
  return `${id}.${attribute}`;
};

/** A property's value as the deploy resolves it (the intrinsics our templates use). */
export const resolveString = (template: CfnTemplate, stack: string, value: unknown): string => {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  const o = value as Record<string, unknown>;
  if (o && 'Ref' in o) return refOf(template, stack, o.Ref as string);
  if (o && 'Fn::GetAtt' in o) {
    const [id, attribute] = o['Fn::GetAtt'] as [string, string];
    return getAttOf(template, stack, id, attribute);
  }
  if (o && 'Fn::Join' in o) {
    const [separator, parts] = o['Fn::Join'] as [string, unknown[]];
    return parts.map((part) => resolveString(template, stack, part)).join(separator);
  }
  if (o && 'Fn::Select' in o) {
    const [index, list] = o['Fn::Select'] as [number, unknown];
    const items = Array.isArray(list) ? list : resolveList(template, stack, list);
    return resolveString(template, stack, items[index]);
  }
  if (o && 'Fn::Sub' in o)
    return (o['Fn::Sub'] as string).replace(/\$\{([\w:]+)\}/g, (_, name: string) => refOf(template, stack, name));
  throw new Error(`cannot resolve ${JSON.stringify(value)}`);
};
const resolveList = (template: CfnTemplate, stack: string, value: unknown): string[] => {
  const o = value as Record<string, unknown>;
  if (o && 'Fn::Split' in o) {
    const [separator, source] = o['Fn::Split'] as [string, unknown];
    return resolveString(template, stack, source).split(separator);
  }
  throw new Error(`cannot resolve a list from ${JSON.stringify(value)}`);
};

/** The services a role's trust policy names: where it may be passed (iam:PassedToService). */
const trustedServices = (template: CfnTemplate, roleId: string): string[] =>
  (template.Resources[roleId]?.Properties?.AssumeRolePolicyDocument?.Statement ?? []).flatMap(
    (s: { Principal?: { Service?: string | string[] } }) => [s.Principal?.Service ?? []].flat(),
  );

const tagged = (stack: string) => ({ [`aws:ResourceTag/${STACK_NAME_TAG}`]: stack });
const own = (arns: string[], context: Own['context'] = {}): Own[] => arns.map((a) => ({ arn: a, context }));

/** A resource's own ARNs (more than one where IAM evaluates several forms). */
export const arnsOf = (template: CfnTemplate, stack: string, id: string): Own[] => {
  const resource = template.Resources[id]!;
  const p = resource.Properties ?? {};
  const ref = refOf(template, stack, id);
  const api = (path: string): string => `arn:aws:apigateway:${REGION}::${path}`;
  const restApi = () => refOf(template, stack, (p.RestApiId as { Ref: string }).Ref);
  switch (resource.Type) {
    case 'AWS::Lambda::Function':
      return own([arn('lambda', `function:${ref}`)]);
    case 'AWS::Lambda::Version':
    case 'AWS::Lambda::Alias':
      return own([ref]);
    case 'AWS::IAM::Role': {
      const boundary =
        p.PermissionsBoundary === undefined ? undefined : resolveString(template, stack, p.PermissionsBoundary);
      const managed = (p.ManagedPolicyArns ?? []).map((a: unknown) => resolveString(template, stack, a));
      return [
        {
          arn: `arn:aws:iam::${ACCOUNT}:role/${ref}`,
          context: boundary === undefined ? {} : { 'iam:PermissionsBoundary': boundary },
          contextFor: (action) => ({
            ...(action === 'iam:PassRole' ? { 'iam:PassedToService': trustedServices(template, id) } : {}),
            ...(/Attach|Detach/.test(action) && managed.length > 0 ? { 'iam:PolicyARN': managed } : {}),
          }),
        },
      ];
    }
    case 'AWS::Logs::LogGroup':
      // Logs evaluates most log-group actions on `…:log-group:NAME:*`, its newer ones (tags) on
      // the ARN without it ("CloudWatch Logs permissions reference":
      // https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/permissions-reference-cwl.html).
      return own([arn('logs', `log-group:${ref}`), arn('logs', `log-group:${ref}:*`)]);
    case 'AWS::DynamoDB::GlobalTable': {
      const table = arn('dynamodb', `table/${ref}`);
      const indexes = (p.GlobalSecondaryIndexes ?? []).map(
        (i: { IndexName: string }) => `${table}/index/${i.IndexName}`,
      );
      // DynamoDB makes its replication role with an account's first global table
      // (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/V2gt_IAM.html).
      const replication = {
        arn: `arn:aws:iam::${ACCOUNT}:role/aws-service-role/replication.dynamodb.amazonaws.com/AWSServiceRoleForDynamoDBReplication`,
        context: { 'iam:AWSServiceName': 'replication.dynamodb.amazonaws.com' },
        madeAlongside: true as const,
      };
      return [...own([table, ...indexes]), replication];
    }
    case 'AWS::SecretsManager::Secret':
    case 'AWS::SNS::Topic':
      return own([ref]);
    case 'AWS::KMS::Key':
      return [{ arn: arn('kms', `key/${ref}`), context: tagged(stack), resourcePolicy: p.KeyPolicy }];
    case 'AWS::CloudWatch::Alarm':
    case 'AWS::CloudWatch::CompositeAlarm':
      return own([arn('cloudwatch', `alarm:${ref}`)]);
    case 'AWS::CloudWatch::Dashboard':
      return own([`arn:aws:cloudwatch::${ACCOUNT}:dashboard/${resolveString(template, stack, p.DashboardName)}`]);
    case 'AWS::CodeDeploy::Application':
      return own([arn('codedeploy', `application:${ref}`)]);
    case 'AWS::CodeDeploy::DeploymentConfig':
      return own([arn('codedeploy', `deploymentconfig:${ref}`)]);
    case 'AWS::CodeDeploy::DeploymentGroup':
      return own([arn('codedeploy', `deploymentgroup:${resolveString(template, stack, p.ApplicationName)}/${ref}`)]);
    case 'AWS::S3::Bucket':
      // Its objects: what the handler empties (and CDK's auto-delete function deletes).
      return [...own([`arn:aws:s3:::${ref}`]), { arn: `arn:aws:s3:::${ref}/*`, context: {}, madeAlongside: true }];
    case 'AWS::Synthetics::Canary': {
      // Synthetics makes the canary's function and layer, `cwsyn-<name>-<id>`, with the caller's
      // credentials ("Required roles and permissions for canaries":
      // https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Synthetics_Canaries_Roles.html).
      const made = `cwsyn-${ref}-${getAttOf(template, stack, id, 'Id')}`;
      return [
        ...own([arn('synthetics', `canary:${ref}`)]),
        ...[arn('lambda', `function:${made}`), arn('lambda', `layer:${made}`), arn('lambda', `layer:${made}:1`)].map(
          (a) => ({ arn: a, context: {}, madeAlongside: true as const }),
        ),
      ];
    }
    case 'AWS::ApiGateway::RestApi':
      return own([api('/restapis'), api(`/restapis/${ref}`)], tagged(stack));
    case 'AWS::ApiGateway::Resource':
      return own(
        [api(`/restapis/${restApi()}/resources`), api(`/restapis/${restApi()}/resources/${ref}`)],
        tagged(stack),
      );
    case 'AWS::ApiGateway::Method': {
      const resourceId = resolveString(template, stack, p.ResourceId);
      return own([api(`/restapis/${restApi()}/resources/${resourceId}/methods/${p.HttpMethod}`)], tagged(stack));
    }
    case 'AWS::ApiGateway::GatewayResponse':
      return own(
        [
          api(`/restapis/${restApi()}/gatewayresponses`),
          api(`/restapis/${restApi()}/gatewayresponses/${p.ResponseType}`),
        ],
        tagged(stack),
      );
    case 'AWS::ApiGateway::Authorizer':
      return own(
        [api(`/restapis/${restApi()}/authorizers`), api(`/restapis/${restApi()}/authorizers/${ref}`)],
        tagged(stack),
      );
    case 'AWS::ApiGateway::Deployment':
      return own(
        [api(`/restapis/${restApi()}/deployments`), api(`/restapis/${restApi()}/deployments/${ref}`)],
        tagged(stack),
      );
    case 'AWS::ApiGateway::Stage':
      return own([api(`/restapis/${restApi()}/stages`), api(`/restapis/${restApi()}/stages/${ref}`)], tagged(stack));
    case 'AWS::ApiGateway::UsagePlan':
      return own([api('/usageplans'), api(`/usageplans/${ref}`)], tagged(stack));
    case 'AWS::ApiGateway::ApiKey':
      return own([api('/apikeys'), api(`/apikeys/${ref}`)], tagged(stack));
    case 'AWS::ApiGateway::UsagePlanKey': {
      const plan = resolveString(template, stack, p.UsagePlanId);
      return own([api(`/usageplans/${plan}/keys`), api(`/usageplans/${plan}/keys/${ref}`)], tagged(stack));
    }
    default:
      return [];
  }
};
