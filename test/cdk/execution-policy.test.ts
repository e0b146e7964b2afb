// Each stage's CloudFormation execution policy (infra/ci/execution-policy.ts), the managed policy
// PetStore-ci makes and `cdk bootstrap --cloudformation-execution-policies` attaches to the
// stage's execution role instead of AdministratorAccess ("Customize AWS CDK bootstrapping",
// "Attach managed policies to the deployment role assumed by AWS CloudFormation":
// https://docs.aws.amazon.com/cdk/v2/guide/bootstrapping-customizing.html, which warns that the
// policy must suffice for every deploy: hence the coverage test below). Evaluated with an IAM
// policy simulator (@cloud-copilot/iam-simulate, IAM's evaluation logic:
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html):
// every resource type of the stage's synthesized template is covered (a sample of the actions
// CloudFormation calls for it, on names as CloudFormation makes them), and the same actions on
// the other stage's resources are denied, as is anything outside those services.
import { beforeAll, describe, expect, test } from 'vitest';
import { executionPolicyNames, STACK_NAME_TAG } from '../../infra/ci/execution-policy.ts';
import { permissionsBoundaryName } from '../../infra/ci/permissions-boundary.ts';
import { BOOTSTRAP_QUALIFIERS } from '../../infra/stage-deployment.ts';
import { DEPLOYED_STAGES, type DeployedStage, stackName } from '../../infra/stages.ts';
import { type Sample, samples, UNSCOPED } from './support/execution-samples.ts';
import { ciTemplate, decideFor, executionPolicyOf } from './support/execution-simulation.ts';
import { resolveIntrinsics } from './support/intrinsics.ts';
import { type CfnTemplate, type SynthesizedApp, synthesized, TEST_ENV } from './support/synth.ts';

const { account: ACCOUNT, region: REGION } = TEST_ENV;
let app: SynthesizedApp;
let ci: CfnTemplate;
beforeAll(async () => {
  app = await synthesized();
  ci = ciTemplate(app);
}, 300_000);

const policyOf = (stage: DeployedStage) => executionPolicyOf(ci, stage);

const decide = async (
  stage: DeployedStage,
  action: string,
  resource: string,
  context: Record<string, string | string[]> = {},
  resourcePolicy?: unknown,
) => decideFor(stage, policyOf(stage), { action, resource, context, resourcePolicy });

/** The alarm topic key's policy, from the stage's template. */
const keyPolicy = (stage: DeployedStage) =>
  resolveIntrinsics(
    app.template(stage),
    Object.values(app.template(stage).Resources).find((r) => r.Type === 'AWS::KMS::Key')!.Properties!.KeyPolicy,
  );

/** CDK's own bookkeeping, which CloudFormation makes nothing for. */
const NOT_RESOURCES = ['AWS::CDK::Metadata'];

const otherStage = (stage: DeployedStage): DeployedStage => (stage === 'staging' ? 'production' : 'staging');

describe.each(DEPLOYED_STAGES)("%s's CloudFormation execution policy", (stage) => {
  test("covers every resource type of the stage's template", async () => {
    const types = new Set(Object.values(app.template(stage).Resources).map((r) => r.Type));
    const scoped = samples(stage, keyPolicy(stage));
    const uncovered = [...types].filter(
      (type) => !NOT_RESOURCES.includes(type) && !(type in scoped || type in UNSCOPED),
    );
    expect(uncovered, 'resource types with no sample here: add them to the policy, then here').toEqual([]);
    for (const type of types)
      for (const { action, resource, context, resourcePolicy } of [...(scoped[type] ?? []), ...(UNSCOPED[type] ?? [])])
        expect(await decide(stage, action, resource, context, resourcePolicy), `${type}: ${action} ${resource}`).toBe(
          'Allowed',
        );
  }, 120_000);

  // A statement that names a resource for an action IAM knows no resource type for never applies
  // (the deploy would fail on it): every action granted is tried on the names its statement
  // covers, and must be allowed on one of them.
  test('grants each of its actions on a resource its statement names', async () => {
    const { Statement } = policyOf(stage) as {
      Statement: { Effect: string; Action: string | string[]; Resource: string | string[] }[];
    };
    const context = {
      [`aws:ResourceTag/${STACK_NAME_TAG}`]: stackName(stage),
      'iam:PolicyARN': 'arn:aws:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited',
      'iam:AWSServiceName': 'replication.dynamodb.amazonaws.com',
      'iam:PassedToService': 'lambda.amazonaws.com',
      'iam:PermissionsBoundary': `arn:aws:iam::${ACCOUNT}:policy/${permissionsBoundaryName(stage)}`,
    };
    const tryOn = async (action: string, pattern: string) => {
      const resourcePolicy = action.startsWith('kms:') && pattern !== '*' ? keyPolicy(stage) : undefined;
      // An ARN that is not of a resource type the action takes: the simulator refuses it.
      return decide(
        stage,
        action,
        pattern === '*' ? '*' : pattern.replaceAll('*', 'x1'),
        context,
        resourcePolicy,
      ).catch((error: Error) => error.message);
    };
    for (const statement of Statement.filter((s) => s.Effect === 'Allow'))
      for (const action of [statement.Action].flat()) {
        const results = await Promise.all([statement.Resource].flat().map((pattern) => tryOn(action, pattern)));
        expect(results, action).toContain('Allowed');
      }
  }, 120_000);

  test("is denied the same actions on the other stage's resources", async () => {
    const other = otherStage(stage);
    for (const [type, list] of Object.entries(samples(other, keyPolicy(other))))
      for (const { action, resource, context, resourcePolicy } of list)
        expect(
          await decide(stage, action, resource, context, resourcePolicy),
          `${type}: ${action} ${resource}`,
        ).not.toBe('Allowed');
  }, 120_000);

  // API keys are the account's, not an API's: the key tool's (tools/keys/usage-plan.ts) carry no
  // CloudFormation tag, only their stage's, `petstore:stage` (API Gateway's access control by tags:
  // https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-tagging-iam-policy.html).
  // A change set of this stage could otherwise import the other stage's client key and delete it.
  test("is denied the other stage's client keys, which the key tool made and tagged with their stage", async () => {
    const clientKey = `arn:aws:apigateway:${REGION}::/apikeys/q9w8e7r6t5`;
    const theirs = { 'aws:ResourceTag/petstore:stage': otherStage(stage) };
    for (const action of ['apigateway:GET', 'apigateway:PATCH', 'apigateway:DELETE'])
      expect(await decide(stage, action, clientKey, theirs), action).not.toBe('Allowed');
    // Its own stage's keys stay reachable (a change set may import them, as the canary's key is made).
    expect(await decide(stage, 'apigateway:GET', clientKey, { 'aws:ResourceTag/petstore:stage': stage })).toBe(
      'Allowed',
    );
  }, 120_000);

  test("is denied the CI stack's and the bootstraps' resources, and anything outside its services", async () => {
    const denied: Sample[] = [
      { action: 'iam:CreateUser', resource: `arn:aws:iam::${ACCOUNT}:user/intruder` },
      { action: 'iam:CreateAccessKey', resource: `arn:aws:iam::${ACCOUNT}:user/admin` },
      ...executionPolicyNames(stage).map((name) => ({
        action: 'iam:CreatePolicyVersion',
        resource: `arn:aws:iam::${ACCOUNT}:policy/${name}`,
      })),
      {
        action: 'iam:CreatePolicyVersion',
        resource: `arn:aws:iam::${ACCOUNT}:policy/${permissionsBoundaryName(stage)}`,
      },
      { action: 'iam:PutRolePolicy', resource: `arn:aws:iam::${ACCOUNT}:role/PetStore-ci-deploy-${stage}` },
      {
        action: 'iam:PutRolePolicy',
        resource: `arn:aws:iam::${ACCOUNT}:role/cdk-${BOOTSTRAP_QUALIFIERS[stage]}-cfn-exec-role-${ACCOUNT}-${REGION}`,
      },
      // Its own roles, but AdministratorAccess: only AWS's service-role policies attach.
      {
        action: 'iam:AttachRolePolicy',
        resource: `arn:aws:iam::${ACCOUNT}:role/${stackName(stage)}-FunctionslistPetsRole-AbC`,
        context: { 'iam:PolicyARN': 'arn:aws:iam::aws:policy/AdministratorAccess' },
      },
      {
        action: 'iam:PassRole',
        resource: `arn:aws:iam::${ACCOUNT}:role/cdk-hnb659fds-cfn-exec-role-${ACCOUNT}-${REGION}`,
      },
      // Its own role, but to a service that would run anything with it.
      {
        action: 'iam:PassRole',
        resource: `arn:aws:iam::${ACCOUNT}:role/${stackName(stage)}-FunctionslistPetsRole-AbC`,
        context: { 'iam:PassedToService': 'ec2.amazonaws.com' },
      },
      {
        action: 'iam:CreateServiceLinkedRole',
        resource: `arn:aws:iam::${ACCOUNT}:role/aws-service-role/ecs.amazonaws.com/AWSServiceRoleForECS`,
        context: { 'iam:AWSServiceName': 'ecs.amazonaws.com' },
      },
      { action: 'ec2:RunInstances', resource: `arn:aws:ec2:${REGION}:${ACCOUNT}:instance/*` },
      { action: 's3:DeleteBucket', resource: `arn:aws:s3:::cdk-hnb659fds-assets-${ACCOUNT}-${REGION}` },
      { action: 's3:DeleteBucket', resource: 'arn:aws:s3:::someone-elses-bucket' },
      {
        action: 's3:PutObject',
        resource: `arn:aws:s3:::cdk-${BOOTSTRAP_QUALIFIERS[stage]}-assets-${ACCOUNT}-${REGION}/x`,
      },
      { action: 'dynamodb:DeleteTable', resource: `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/orders` },
      { action: 'lambda:UpdateFunctionCode', resource: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:billing` },
      {
        action: 'secretsmanager:GetSecretValue',
        resource: `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:db-AbCdEf`,
      },
      { action: 'sts:AssumeRole', resource: `arn:aws:iam::${ACCOUNT}:role/PetStore-ci-deploy-production` },
      {
        action: 'cloudformation:DeleteStack',
        resource: `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/PetStore-ci/0a`,
      },
      // Another stack's API and key (CloudFormation tags them with their stack's name).
      ...['PetStore-ci', `CDKToolkit-petstore-${stage}`, 'some-other-app'].flatMap((owner) => [
        {
          action: 'apigateway:DELETE',
          resource: `arn:aws:apigateway:${REGION}::/restapis/z9y8x7`,
          context: { [`aws:ResourceTag/${STACK_NAME_TAG}`]: owner },
        },
        {
          action: 'kms:ScheduleKeyDeletion',
          resource: `arn:aws:kms:${REGION}:${ACCOUNT}:key/9999abcd-12ab-34cd-56ef-1234567890ab`,
          context: { [`aws:ResourceTag/${STACK_NAME_TAG}`]: owner },
          resourcePolicy: keyPolicy(stage),
        },
      ]),
    ];
    for (const { action, resource, context, resourcePolicy } of denied)
      expect(await decide(stage, action, resource, context, resourcePolicy), `${action} ${resource}`).not.toBe(
        'Allowed',
      );
  }, 120_000);
});
