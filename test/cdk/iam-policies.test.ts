// The synthesized IAM policies, evaluated by an IAM policy simulator (@cloud-copilot/iam-simulate,
// which implements IAM's evaluation logic: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html)
// instead of read as JSON: what a principal may do is what the evaluation says, conditions
// included. The pipeline's roles (infra/ci): a stage's deploy role cannot assume the other
// stage's bootstrap roles (per-stage qualifiers, "Customize CDK bootstrapping":
// https://docs.aws.amazon.com/cdk/v2/guide/bootstrapping-customizing.html; a single shared
// bootstrap hands every stage's deploy to one AdministratorAccess execution role,
// aws/aws-cdk#27097), and the diff role reads no data. Each function's role: allowed exactly
// what its code calls, and the authorizer's one write only on the key's last use
// (dynamodb:Attributes, https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/specifying-conditions.html).
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { beforeAll, describe, expect, test } from 'vitest';
import { CI_ROLES, CI_STACK_NAME } from '../../infra/ci/github.ts';
import { BOOTSTRAP_QUALIFIERS } from '../../infra/stage-deployment.ts';
import { DEPLOYED_STAGES, type DeployedStage, stackName } from '../../infra/stages.ts';
import type { FunctionName } from '../../shared/api/routes.ts';
import { arnOf, resolveIntrinsics as resolve } from './support/intrinsics.ts';
import { type CfnTemplate, type SynthesizedApp, synthesized, TEST_ENV } from './support/synth.ts';

const { account: ACCOUNT, region: REGION } = TEST_ENV;
let app: SynthesizedApp;
let ci: CfnTemplate;
beforeAll(async () => {
  app = await synthesized();
  ci = JSON.parse(
    (await import('node:fs')).readFileSync(`${app.dir}/${CI_STACK_NAME}.template.json`, 'utf8'),
  ) as CfnTemplate;
}, 300_000);

/** Every policy document attached to a role: inline (Policies) and AWS::IAM::Policy resources. */
const policiesOf = (template: CfnTemplate, roleId: string) => {
  const role = template.Resources[roleId]!;
  const inline = (role.Properties?.Policies ?? []).map((p: { PolicyDocument: unknown }) => p.PolicyDocument);
  const attached = Object.values(template.Resources)
    .filter(
      (r) => r.Type === 'AWS::IAM::Policy' && r.Properties?.Roles?.some((ref: { Ref?: string }) => ref.Ref === roleId),
    )
    .map((r) => r.Properties!.PolicyDocument);
  expect(role.Properties?.ManagedPolicyArns ?? [], `${roleId}: a managed policy this test cannot read`).toEqual([]);
  return [...inline, ...attached].map((policy, i) => ({ name: `${roleId}-${i}`, policy: resolve(template, policy) }));
};

const roleIdNamed = (template: CfnTemplate, name: string) =>
  Object.entries(template.Resources).find(
    ([, r]) => r.Type === 'AWS::IAM::Role' && r.Properties?.RoleName === name,
  )![0];

const decide = async (
  template: CfnTemplate,
  roleId: string,
  action: string,
  resource: string,
  context: Record<string, string | string[]> = {},
) => {
  const response = await runSimulation(
    {
      request: {
        principal: `arn:aws:iam::${ACCOUNT}:role/${roleId}`,
        action,
        resource: { resource, accountId: ACCOUNT },
        contextVariables: context,
      },
      identityPolicies: policiesOf(template, roleId) as never,
      serviceControlPolicies: [],
      resourceControlPolicies: [],
    },
    {},
  );
  if (response.resultType === 'error') throw new Error(JSON.stringify(response.errors));
  return response.overallResult;
};

const bootstrapRole = (stage: DeployedStage, kind: string) =>
  `arn:aws:iam::${ACCOUNT}:role/cdk-${BOOTSTRAP_QUALIFIERS[stage]}-${kind}-role-${ACCOUNT}-${REGION}`;
const stackArn = (name: string) => `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/${name}/0a1b2c3d`;

describe("the pipeline's roles", () => {
  test.each([
    ['staging', 'production'],
    ['production', 'staging'],
  ] as const)("%s's deploy role: its own bootstrap roles and stack only, never %s's", async (stage, other) => {
    const role = roleIdNamed(ci, CI_ROLES.deploy(stage));
    for (const kind of ['deploy', 'file-publishing'])
      expect(await decide(ci, role, 'sts:AssumeRole', bootstrapRole(stage, kind)), kind).toBe('Allowed');
    for (const kind of ['deploy', 'file-publishing', 'lookup', 'cfn-exec', 'image-publishing'])
      expect(await decide(ci, role, 'sts:AssumeRole', bootstrapRole(other, kind)), `${other} ${kind}`).toBe(
        'ImplicitlyDenied',
      );
    // No lookup role, even its own stage's: ReadOnlyAccess reads every table and log.
    expect(await decide(ci, role, 'sts:AssumeRole', bootstrapRole(stage, 'lookup'))).toBe('ImplicitlyDenied');
    // The default bootstrap, which a `cdk bootstrap` without --qualifier makes: not this stage's.
    expect(
      await decide(
        ci,
        role,
        'sts:AssumeRole',
        `arn:aws:iam::${ACCOUNT}:role/cdk-hnb659fds-deploy-role-${ACCOUNT}-${REGION}`,
      ),
    ).toBe('ImplicitlyDenied');
    expect(await decide(ci, role, 'cloudformation:DescribeStacks', stackArn(stackName(stage)))).toBe('Allowed');
    for (const action of [
      'cloudformation:DescribeStacks',
      'cloudformation:CreateChangeSet',
      'cloudformation:UpdateStack',
      'cloudformation:DeleteStack',
    ])
      expect(await decide(ci, role, action, stackArn(stackName(other))), action).toBe('ImplicitlyDenied');
    for (const action of [
      'cloudformation:CreateChangeSet',
      'cloudformation:ExecuteChangeSet',
      'cloudformation:DeleteStack',
    ])
      expect(await decide(ci, role, action, stackArn(stackName(stage))), `directly: ${action}`).toBe(
        'ImplicitlyDenied',
      );
  });

  test("the diff role reads the stacks' templates, and no table, log or secret", async () => {
    const role = roleIdNamed(ci, CI_ROLES.diff);
    for (const stage of DEPLOYED_STAGES)
      expect(await decide(ci, role, 'cloudformation:GetTemplate', stackArn(stackName(stage)))).toBe('Allowed');
    const table = `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/PetStore-production-Datakeys-ABC`;
    for (const action of ['dynamodb:GetItem', 'dynamodb:Scan', 'dynamodb:Query'])
      expect(await decide(ci, role, action, table), action).toBe('ImplicitlyDenied');
    const logGroup = `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:/aws/lambda/PetStore-production-authorizer`;
    for (const action of ['logs:FilterLogEvents', 'logs:StartQuery'])
      expect(await decide(ci, role, action, logGroup), action).toBe('ImplicitlyDenied');
    expect(await decide(ci, role, 'logs:GetLogEvents', `${logGroup}:log-stream:x`)).toBe('ImplicitlyDenied');
    expect(await decide(ci, role, 'sts:AssumeRole', bootstrapRole('production', 'lookup'))).toBe('ImplicitlyDenied');
  });
});

/** What a function's calls reach: a table, the status index, or the cursor secret. */
type Target = 'pets' | 'counters' | 'idempotency' | 'keys' | 'petsIndex' | 'cursorSecret';

describe("each function's role: what its code calls, and nothing else", () => {
  // From shared/dynamodb and functions/: the calls each handler makes, by table. Written here, not
  // read from the route entries: they are what the entries' grants are checked against. Every
  // function must have its line (a Record of FunctionName): one left out would never be simulated.
  const calls: Record<FunctionName, Partial<Record<Target, readonly string[]>>> = {
    listPets: {
      pets: ['dynamodb:Scan'],
      petsIndex: ['dynamodb:Query'],
      counters: ['dynamodb:GetItem'],
      cursorSecret: ['secretsmanager:GetSecretValue'],
    },
    getPet: { pets: ['dynamodb:GetItem'] },
    createPet: {
      pets: ['dynamodb:PutItem'],
      counters: ['dynamodb:UpdateItem'],
      idempotency: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
    },
    authorizer: { keys: ['dynamodb:GetItem'] },
  };
  const DATA_ACTIONS = [
    'dynamodb:GetItem',
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:Scan',
    'dynamodb:Query',
    'dynamodb:BatchWriteItem',
    'dynamodb:BatchGetItem',
    'dynamodb:DeleteTable',
  ];

  test.each(DEPLOYED_STAGES)(
    '%s',
    async (stage) => {
      const template = app.template(stage);
      const index = app.index[stage];
      const tables = Object.fromEntries(Object.entries(index.tables).map(([name, id]) => [name, arnOf(template, id)]));
      for (const [fn, byTarget] of Object.entries(calls)) {
        const role = index.functions[fn as FunctionName].role;
        const allowed = new Map<string, readonly string[]>(
          Object.entries(byTarget).map(([target, actions]) => [
            target === 'petsIndex'
              ? `${tables.pets}/index/byStatusShard`
              : target === 'cursorSecret'
                ? arnOf(template, index.cursorSecret)
                : tables[target]!,
            actions ?? [],
          ]),
        );
        for (const [resource, actions] of allowed)
          for (const action of actions)
            expect(await decide(template, role, action, resource), `${fn}: ${action} ${resource}`).toBe('Allowed');
        for (const table of Object.values(tables))
          for (const action of DATA_ACTIONS)
            if (
              !(allowed.get(table) ?? []).includes(action) &&
              !(fn === 'authorizer' && action === 'dynamodb:UpdateItem')
            )
              expect(await decide(template, role, action, table), `${fn}: ${action} ${table}`).toBe('ImplicitlyDenied');
      }
      // The authorizer's one write: the key's last use, and no other attribute, returning nothing.
      const authorizer = index.functions.authorizer.role;
      const update = (attributes: string[], returnValues = 'NONE') =>
        decide(template, authorizer, 'dynamodb:UpdateItem', tables.keys!, {
          'dynamodb:Attributes': attributes,
          'dynamodb:ReturnValues': returnValues,
        });
      expect(await update(['keyHash', 'lastUsedAt'])).toBe('Allowed');
      expect(await update(['keyHash', 'revokedAt'])).toBe('ImplicitlyDenied');
      expect(await update(['keyHash', 'lastUsedAt', 'scope'])).toBe('ImplicitlyDenied');
      expect(await update(['keyHash', 'lastUsedAt'], 'ALL_OLD')).toBe('ImplicitlyDenied');
      for (const other of ['pets', 'counters', 'idempotency'])
        expect(await decide(template, authorizer, 'dynamodb:UpdateItem', tables[other]!), other).toBe(
          'ImplicitlyDenied',
        );
      // listPets reads the shard record and no other counter (DynamoDB names the item's partition
      // key value in dynamodb:LeadingKeys).
      const listPets = index.functions.listPets.role;
      const read = (counter: string) =>
        decide(template, listPets, 'dynamodb:GetItem', tables.counters!, { 'dynamodb:LeadingKeys': [counter] });
      expect(await read('statusIndexShards')).toBe('Allowed');
      expect(await read('petId')).toBe('ImplicitlyDenied');
    },
    120_000,
  );
});
