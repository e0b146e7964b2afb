// CloudFormation's intrinsics in a synthesized policy, resolved as a deploy in TEST_ENV would:
// pseudo parameters, Ref / Fn::GetAtt of a resource to its ARN, Fn::Join. What the IAM
// simulation tests (iam-policies, execution-policy) evaluate.
import type { CfnTemplate } from './synth.ts';
import { TEST_ENV } from './synth.ts';

const { account: ACCOUNT, region: REGION } = TEST_ENV;

/** What a resource's ARN would be once deployed, from its type and logical id. */
export const arnOf = (template: CfnTemplate, id: string): string => {
  const type = template.Resources[id]?.Type;
  if (type === 'AWS::DynamoDB::GlobalTable' || type === 'AWS::DynamoDB::Table')
    return `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${id}`;
  if (type === 'AWS::SecretsManager::Secret') return `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${id}-AbCdEf`;
  if (type === 'AWS::Logs::LogGroup') return `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${id}:*`;
  return `arn:aws:cloudformation:${REGION}:${ACCOUNT}:resource/${id}`;
};

/** CloudFormation's intrinsics in a policy, resolved as the deploy would (this account and region). */
export const resolveIntrinsics = (template: CfnTemplate, value: unknown): unknown => {
  if (Array.isArray(value)) return value.map((v) => resolveIntrinsics(template, v));
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  if ('Ref' in object) {
    const pseudo: Record<string, string> = {
      'AWS::Partition': 'aws',
      'AWS::AccountId': ACCOUNT,
      'AWS::Region': REGION,
    };
    return pseudo[object.Ref as string] ?? arnOf(template, object.Ref as string);
  }
  if ('Fn::GetAtt' in object) return arnOf(template, (object['Fn::GetAtt'] as string[])[0]!);
  if ('Fn::Join' in object) {
    const [separator, parts] = object['Fn::Join'] as [string, unknown[]];
    return parts.map((part) => resolveIntrinsics(template, part)).join(separator);
  }
  return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, resolveIntrinsics(template, v)]));
};
