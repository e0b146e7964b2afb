// A CDK bootstrap template's IAM roles as `cdk bootstrap` would make them in TEST_ENV: the
// template's parameters, conditions, mappings and intrinsics resolved the way CloudFormation
// resolves them, for the roles' trust and permission policies only. What the stage-isolation
// tests simulate: the project's template (infra/bootstrap/) and CDK's as shipped.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { REPOSITORY_ROOT } from '../../../infra/repository-root.ts';
import { TEST_ENV } from './synth.ts';

const { account: ACCOUNT, region: REGION } = TEST_ENV;

/** CDK's bootstrap template as the installed CLI ships it. */
export const SHIPPED_BOOTSTRAP_TEMPLATE = join(
  dirname(createRequire(import.meta.url).resolve('aws-cdk/package.json')),
  'lib/api/bootstrap/bootstrap-template.yaml',
);
/** The project's (docs/deploying.md: `cdk bootstrap --template`). */
export const PROJECT_BOOTSTRAP_TEMPLATE = join(REPOSITORY_ROOT, 'infra/bootstrap/bootstrap-template.yaml');

export type Document = { Statement: Record<string, unknown>[] };
export interface BootstrapRole {
  /** deploy, file-publishing, image-publishing, lookup, cfn-exec */
  kind: string;
  arn: string;
  trust: Document;
  policies: { name: string; policy: Document }[];
  /** Managed policies this cannot read (the lookup role's ReadOnlyAccess): never simulated. */
  unreadable: string[];
}

/**
 * AWS managed policies the shipped template attaches, as AWS publishes them. Any other managed
 * policy is refused: a role this cannot read is not simulated as if it had no permissions.
 */
const AWS_MANAGED: Record<string, Document> = {
  // https://docs.aws.amazon.com/aws-managed-policy/latest/reference/AdministratorAccess.html
  AdministratorAccess: { Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] },
  // https://docs.aws.amazon.com/aws-managed-policy/latest/reference/AWSCloudFormationReadOnlyAccess.html
  AWSCloudFormationReadOnlyAccess: {
    Statement: [
      {
        Effect: 'Allow',
        Action: [
          'cloudformation:Describe*',
          'cloudformation:BatchDescribe*',
          'cloudformation:EstimateTemplateCost',
          'cloudformation:Get*',
          'cloudformation:List*',
          'cloudformation:ValidateTemplate',
          'cloudformation:Detect*',
        ],
        Resource: '*',
      },
    ],
  },
};

const NO_VALUE = Symbol('AWS::NoValue');
type Template = {
  Parameters: Record<string, { Default?: string; Type: string }>;
  Mappings?: Record<string, Record<string, Record<string, string>>>;
  Conditions: Record<string, unknown>;
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
};

/** The physical name or id `Ref` gives, and the ARN `Fn::GetAtt … Arn` gives, of a resource. */
const physical = (template: Template, resolve: (v: unknown) => unknown, id: string, attribute?: string): string => {
  const { Type, Properties = {} } = template.Resources[id]!;
  const name = (key: string) => resolve(Properties[key]) as string;
  switch (Type) {
    case 'AWS::IAM::Role':
      return attribute ? `arn:aws:iam::${ACCOUNT}:role/${name('RoleName')}` : name('RoleName');
    case 'AWS::S3::Bucket':
      return attribute ? `arn:aws:s3:::${name('BucketName')}` : name('BucketName');
    case 'AWS::ECR::Repository':
      return attribute
        ? `arn:aws:ecr:${REGION}:${ACCOUNT}:repository/${name('RepositoryName')}`
        : name('RepositoryName');
    case 'AWS::KMS::Key':
      return attribute ? `arn:aws:kms:${REGION}:${ACCOUNT}:key/${id}-id` : `${id}-id`;
    case 'AWS::SSM::Parameter':
      return name('Name');
    default:
      throw new Error(`no physical name for ${Type} ${id}`);
  }
};

/** The CloudFormation parameters `cdk bootstrap` passes: the qualifier and the execution policies, the rest at its default. */
const parametersOf = (template: Template, qualifier: string, executionPolicies: string[]) => {
  const parameters: Record<string, string | string[]> = {};
  for (const [name, { Default = '', Type }] of Object.entries(template.Parameters))
    parameters[name] = Type === 'CommaDelimitedList' ? Default.split(',') : Default;
  parameters.Qualifier = qualifier;
  if (executionPolicies.length > 0) parameters.CloudFormationExecutionPolicies = executionPolicies;
  return parameters;
};

/** CloudFormation's resolution of a template's values, for these parameters in TEST_ENV. */
const resolverOf = (template: Template, parameters: Record<string, string | string[]>) => {
  const pseudo: Record<string, string> = { 'AWS::AccountId': ACCOUNT, 'AWS::Region': REGION, 'AWS::Partition': 'aws' };

  const ref = (name: string): unknown =>
    name === 'AWS::NoValue' ? NO_VALUE : (pseudo[name] ?? parameters[name] ?? physical(template, resolve, name));
  const sub = (text: string, variables: Record<string, unknown> = {}) =>
    text.replace(/\$\{([^}]+)\}/g, (_, key: string) => {
      if (key in variables) return resolve(variables[key]) as string;
      const [id, attribute] = key.split('.');
      return attribute ? physical(template, resolve, id!, attribute) : String(ref(key));
    });
  const condition = (name: string): boolean => resolve(template.Conditions[name]) as boolean;
  function resolve(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(resolve).filter((v) => v !== NO_VALUE);
    if (value === null || typeof value !== 'object') return value;
    const object = value as Record<string, unknown>;
    const [key] = Object.keys(object);
    const argument = object[key!];
    switch (key) {
      case 'Ref':
        return ref(argument as string);
      case 'Condition':
        return condition(argument as string);
      case 'Fn::Sub':
        return Array.isArray(argument)
          ? sub(argument[0] as string, argument[1] as Record<string, unknown>)
          : sub(argument as string);
      case 'Fn::GetAtt':
        return physical(template, resolve, (argument as string[])[0]!, (argument as string[])[1]);
      case 'Fn::If': {
        const [name, then, otherwise] = argument as [string, unknown, unknown];
        return resolve(condition(name) ? then : otherwise);
      }
      case 'Fn::Equals': {
        const [a, b] = (argument as unknown[]).map(resolve);
        return JSON.stringify(a) === JSON.stringify(b);
      }
      case 'Fn::Not':
        return !(resolve((argument as unknown[])[0]) as boolean);
      case 'Fn::Contains': {
        const [list, item] = (argument as unknown[]).map(resolve) as [string[], string];
        return list.includes(item);
      }
      case 'Fn::And':
        return (argument as unknown[]).every((v) => resolve(v) as boolean);
      case 'Fn::Join': {
        const [separator, parts] = argument as [string, unknown];
        return [resolve(parts)].flat().join(separator);
      }
      case 'Fn::FindInMap': {
        const [map, top, second] = (argument as unknown[]).map(resolve) as string[];
        const found = template.Mappings?.[map!]?.[top!]?.[second!];
        if (found === undefined) throw new Error(`Fn::FindInMap: no ${map}.${top}.${second}: the bootstrap fails`);
        return found;
      }
      default:
        return Object.fromEntries(
          Object.entries(object)
            .map(([k, v]) => [k, resolve(v)])
            .filter(([, v]) => v !== NO_VALUE),
        );
    }
  }

  return resolve;
};

/**
 * The roles a bootstrap template makes, with `cdk bootstrap --qualifier <qualifier>
 * [--cloudformation-execution-policies …]` and every other parameter at its default, as the
 * CLI passes them. `managed` reads a customer managed policy by ARN (the stages' execution policies).
 */
export const bootstrapRoles = (
  templatePath: string,
  qualifier: string,
  executionPolicies: string[],
  managed: (arn: string) => Document,
): BootstrapRole[] => {
  const template = parse(readFileSync(templatePath, 'utf8')) as Template;
  const resolve = resolverOf(template, parametersOf(template, qualifier, executionPolicies));
  const managedPolicy = (arn: string): Document | undefined => {
    const aws = /^arn:aws:iam::aws:policy\/(.+)$/.exec(arn)?.[1];
    return aws === undefined ? managed(arn) : AWS_MANAGED[aws];
  };
  const roles = Object.entries(template.Resources).filter(([, r]) => r.Type === 'AWS::IAM::Role');
  return roles.map(([id, role]) => {
    const properties = resolve(role.Properties) as Record<string, unknown>;
    const arn = `arn:aws:iam::${ACCOUNT}:role/${properties.RoleName as string}`;
    const inline = ((properties.Policies ?? []) as { PolicyName: string; PolicyDocument: Document }[]).map((p) => ({
      name: `${id}-${p.PolicyName}`,
      policy: p.PolicyDocument,
    }));
    const attached = Object.entries(template.Resources)
      .filter(([, r]) => r.Type === 'AWS::IAM::Policy')
      .map(([policyId, r]) => [policyId, resolve(r.Properties)] as const)
      .filter(([, p]) => ((p as { Roles: string[] }).Roles ?? []).includes(properties.RoleName as string))
      .map(([policyId, p]) => ({ name: policyId, policy: (p as { PolicyDocument: Document }).PolicyDocument }));
    const managedArns = [(properties.ManagedPolicyArns ?? []) as string[]].flat();
    const managedPolicies = managedArns.flatMap((policyArn) => {
      const policy = managedPolicy(policyArn);
      return policy ? [{ name: policyArn, policy }] : [];
    });
    const kind = /^cdk-[^-]+-(.+)-role-/.exec(properties.RoleName as string)![1]!;
    return {
      kind,
      arn,
      trust: properties.AssumeRolePolicyDocument as Document,
      policies: [...inline, ...attached, ...managedPolicies],
      unreadable: managedArns.filter((policyArn) => !managedPolicy(policyArn)),
    };
  });
};

/** The AssertDescription of each Rules assertion of the template that fails for these parameters. */
export const failedRules = (templatePath: string, qualifier: string, executionPolicies: string[]): string[] => {
  const template = parse(readFileSync(templatePath, 'utf8')) as Template & {
    Rules?: Record<string, { Assertions: { Assert: unknown; AssertDescription: string }[] }>;
  };
  const resolve = resolverOf(template, parametersOf(template, qualifier, executionPolicies));
  return Object.values(template.Rules ?? {})
    .flatMap((rule) => rule.Assertions)
    .filter((assertion) => resolve(assertion.Assert) !== true)
    .map((assertion) => assertion.AssertDescription);
};
