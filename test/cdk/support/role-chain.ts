// Every IAM role of the account that the pipeline touches, and what a principal can reach from
// one of them: the CI stack's roles (PetStore-ci as synthesized), the stages' bootstraps (the
// given template with each stage's qualifier and execution policy) and the default bootstrap
// PetStore-ci is deployed with (CDK's template: AdministratorAccess). Evaluated by an IAM
// simulator (@cloud-copilot/iam-simulate), trust policies included.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { expect } from 'vitest';
import { executionPolicyNames } from '../../../infra/ci/execution-policy.ts';
import { CI_STACK_NAME } from '../../../infra/ci/github.ts';
import { BOOTSTRAP_QUALIFIERS } from '../../../infra/stage-deployment.ts';
import { DEPLOYED_STAGES, type DeployedStage, stackName } from '../../../infra/stages.ts';
import { type BootstrapRole, bootstrapRoles, type Document, SHIPPED_BOOTSTRAP_TEMPLATE } from './bootstrap.ts';
import { resolveIntrinsics } from './intrinsics.ts';
import { type CfnTemplate, TEST_ENV } from './synth.ts';

const { account: ACCOUNT, region: REGION } = TEST_ENV;
export const DEFAULT_QUALIFIER = 'hnb659fds';

export interface Role {
  name: string;
  arn: string;
  trust: Document;
  policies: { name: string; policy: Document }[];
  unreadable: string[];
}

export const stackArn = (name: string, id = '0a1b2c3d-4e5f') =>
  `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/${name}/${id}`;
export const bootstrapRoleArn = (qualifier: string, kind: string) =>
  `arn:aws:iam::${ACCOUNT}:role/cdk-${qualifier}-${kind}-role-${ACCOUNT}-${REGION}`;
export const assetsBucket = (qualifier: string) => `cdk-${qualifier}-assets-${ACCOUNT}-${REGION}`;
/** What the bootstrap commands in docs/deploying.md name: each stage's execution policies (two parts). */
export const executionPolicyArns = (stage: DeployedStage) =>
  executionPolicyNames(stage).map((name) => `arn:aws:iam::${ACCOUNT}:policy/${name}`);

/** The stacks of the account, and the role each was last deployed with (what a change set without RoleARN uses). */
export const STACKS: Record<string, string | undefined> = {
  ...Object.fromEntries(
    DEPLOYED_STAGES.map((stage) => [stackName(stage), bootstrapRoleArn(BOOTSTRAP_QUALIFIERS[stage], 'cfn-exec')]),
  ),
  [CI_STACK_NAME]: bootstrapRoleArn(DEFAULT_QUALIFIER, 'cfn-exec'),
  // The bootstraps, deployed by an administrator's own credentials.
  CDKToolkit: undefined,
  ...Object.fromEntries(DEPLOYED_STAGES.map((stage) => [`CDKToolkit-petstore-${stage}`, undefined])),
};

export const decide = async (
  role: Role,
  action: string,
  resource: string,
  context: Record<string, string | string[]> = {},
  resourcePolicy?: Document,
) => {
  if (role.unreadable.length > 0) throw new Error(`${role.name}: cannot read ${role.unreadable.join(', ')}`);
  const response = await runSimulation(
    {
      request: { principal: role.arn, action, resource: { resource, accountId: ACCOUNT }, contextVariables: context },
      identityPolicies: role.policies as never,
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(resourcePolicy ? { resourcePolicy } : {}),
    },
    {},
  );
  if (response.resultType === 'error') throw new Error(`${action} ${resource}: ${JSON.stringify(response.errors)}`);
  return response.overallResult;
};

/** The CI stack's roles, as its template makes them. */
export const ciRoles = (ci: CfnTemplate): Role[] =>
  Object.entries(ci.Resources)
    .filter(([, r]) => r.Type === 'AWS::IAM::Role')
    .map(([id, r]) => {
      const properties = resolveIntrinsics(ci, r.Properties) as Record<string, unknown>;
      expect(properties.ManagedPolicyArns ?? [], id).toEqual([]);
      return {
        name: properties.RoleName as string,
        arn: `arn:aws:iam::${ACCOUNT}:role/${properties.RoleName as string}`,
        trust: properties.AssumeRolePolicyDocument as Document,
        policies: ((properties.Policies ?? []) as { PolicyName: string; PolicyDocument: Document }[]).map((p) => ({
          name: p.PolicyName,
          policy: p.PolicyDocument,
        })),
        unreadable: [],
      };
    });

/** The execution policies PetStore-ci makes, by ARN. */
const managedPolicies =
  (ci: CfnTemplate) =>
  (arn: string): Document => {
    const found = Object.values(ci.Resources).find(
      (r) => r.Type === 'AWS::IAM::ManagedPolicy' && arn.endsWith(`:policy/${r.Properties!.ManagedPolicyName}`),
    );
    if (!found) throw new Error(`${arn}: not made by ${CI_STACK_NAME}`);
    return resolveIntrinsics(ci, found.Properties!.PolicyDocument) as Document;
  };

/** Every role: the CI stack's, each stage's bootstrap from `stageTemplate`, and the default bootstrap (CDK's). */
export const accountRoles = (ci: CfnTemplate, stageTemplate: string): Role[] => {
  const named = (role: BootstrapRole): Role => ({ ...role, name: role.arn.split(':role/')[1]! });
  return [
    ...ciRoles(ci),
    ...DEPLOYED_STAGES.flatMap((stage) =>
      bootstrapRoles(stageTemplate, BOOTSTRAP_QUALIFIERS[stage], executionPolicyArns(stage), managedPolicies(ci)).map(
        named,
      ),
    ),
    ...bootstrapRoles(SHIPPED_BOOTSTRAP_TEMPLATE, DEFAULT_QUALIFIER, [], managedPolicies(ci)).map(named),
  ];
};

/**
 * Every role reachable from `start`: by sts:AssumeRole (its permissions and the target's trust),
 * and through CloudFormation: a change set on a stack it may change runs as the role passed in
 * RoleARN (iam:PassRole to CloudFormation, and CreateChangeSet allowed with that role) or, with no
 * RoleARN, as the role the stack already has, with no PassRole asked (CloudFormation's
 * CreateChangeSet reference, RoleARN:
 * https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/API_CreateChangeSet.html).
 */
export const reachable = async (roles: Role[], start: Role): Promise<Map<string, string>> => {
  const byArn = new Map(roles.map((role) => [role.arn, role]));
  const reached = new Map<string, string>([[start.arn, 'its token']]);
  const queue = [start];
  const reach = (arn: string, how: string) => {
    if (reached.has(arn)) return;
    reached.set(arn, how);
    const role = byArn.get(arn);
    if (role) queue.push(role);
  };
  while (queue.length > 0) {
    const from = queue.shift()!;
    if (from.unreadable.length > 0) continue; // reported by the caller: reaching it is already the finding
    for (const to of roles)
      if ((await decide(from, 'sts:AssumeRole', to.arn, {}, to.trust)) === 'Allowed')
        reach(to.arn, `${from.name}: sts:AssumeRole`);
    for (const [stack, existingRole] of Object.entries(STACKS)) {
      const arn = stackArn(stack);
      if (existingRole && (await decide(from, 'cloudformation:CreateChangeSet', arn)) === 'Allowed')
        reach(existingRole, `${from.name}: CreateChangeSet on ${stack} without RoleARN`);
      for (const exec of roles.filter((r) => r.name.includes('-cfn-exec-role-'))) {
        const passed = await decide(from, 'iam:PassRole', exec.arn, {
          'iam:PassedToService': 'cloudformation.amazonaws.com',
        });
        const changed = await decide(from, 'cloudformation:CreateChangeSet', arn, {
          'cloudformation:RoleArn': exec.arn,
        });
        if (passed === 'Allowed' && changed === 'Allowed')
          reach(exec.arn, `${from.name}: CreateChangeSet on ${stack} with RoleARN`);
      }
    }
  }
  return reached;
};

/** A synthesized template of the app's output directory. */
export const templateOf = (dir: string, stack: string) =>
  JSON.parse(readFileSync(join(dir, `${stack}.template.json`), 'utf8')) as CfnTemplate;
