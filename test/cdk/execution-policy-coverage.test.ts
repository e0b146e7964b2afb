// Each stage's CloudFormation execution policy (infra/ci/execution-policy.ts) against what
// CloudFormation will ask for, from AWS's own data: for every resource of the stage's synthesized
// template, every permission its type's registry schema lists for the create, update and delete
// handlers (vendored: support/resource-schemas/README.md), on every ARN IAM evaluates for it,
// built from the template's properties and IAM's ARN formats (support/handler-permissions.ts).
// The execution role must be allowed all of them ("Customize AWS CDK bootstrapping":
// https://docs.aws.amazon.com/cdk/v2/guide/bootstrapping-customizing.html: the policy must
// suffice for every deploy), and the other stage's execution role none of them.
// Hand-written samples stay in execution-policy.test.ts as extra cases.
import { beforeAll, describe, expect, test } from 'vitest';
import { CI_STACK_NAME } from '../../infra/ci/github.ts';
import { DEPLOYED_STAGES, type DeployedStage, stackName } from '../../infra/stages.ts';
import { ciTemplate, decideFor, executionPolicyOf } from './support/execution-simulation.ts';
import {
  handlerRequests,
  type Request,
  registryType,
  type Skip,
  vendoredSchemas,
} from './support/handler-permissions.ts';
import { resolveIntrinsics } from './support/intrinsics.ts';
import { type CfnTemplate, type SynthesizedApp, synthesized, TEST_ENV } from './support/synth.ts';

let app: SynthesizedApp;
const computed = new Map<DeployedStage, { requests: Request[]; skips: Skip[] }>();
beforeAll(async () => {
  app = await synthesized();
  for (const stage of DEPLOYED_STAGES)
    computed.set(stage, await handlerRequests(app.template(stage), stackName(stage)));
}, 300_000);

const otherStage = (stage: DeployedStage): DeployedStage => (stage === 'staging' ? 'production' : 'staging');

/**
 * Handler permissions the policy refuses on purpose. iam:DeleteRolePermissionsBoundary: the Role
 * handler calls it only to take a boundary off, which no template of ours does (every role carries
 * the stage's boundary, as test/cdk/permissions-boundary.test.ts checks) and no template may.
 */
const REFUSED = new Set(['iam:DeleteRolePermissionsBoundary']);

/**
 * Permissions tried on nothing because the template names no resource of any type IAM gives
 * the action, with why that holds for our templates. A new entry means a new kind of resource:
 * look before adding it here.
 */
const NAMES_NOTHING: Record<string, string> = {
  'AWS::ApiGateway::ApiKey apigateway:PUT': 'IAM gives PUT no API key resource type (PUT /apikeys imports keys)',
  'AWS::ApiGateway::RestApi iam:PassRole': 'the API names no role (no CloudWatch or credentials role of its own)',
  'AWS::DynamoDB::GlobalTable dynamodb:DescribeBackup': 'the tables have no on-demand backups',
  'AWS::DynamoDB::GlobalTable dynamodb:DescribeExport': 'the tables have no exports',
  'AWS::DynamoDB::GlobalTable dynamodb:DescribeImport': 'the tables are not imported',
  'AWS::DynamoDB::GlobalTable dynamodb:DescribeGlobalTable': 'a 2017.11.29 global table, which GlobalTable never makes',
  'AWS::DynamoDB::GlobalTable dynamodb:DescribeGlobalTableSettings':
    'a 2017.11.29 global table, which GlobalTable never makes',
  'AWS::DynamoDB::GlobalTable dynamodb:DescribeStream': 'the tables have no stream (no StreamSpecification)',
  'AWS::DynamoDB::GlobalTable kms:CreateGrant': "the tables use DynamoDB's own key: no key is named",
  'AWS::DynamoDB::GlobalTable kms:Decrypt': "the tables use DynamoDB's own key: no key is named",
  'AWS::DynamoDB::GlobalTable kms:DescribeKey': "the tables use DynamoDB's own key: no key is named",
  'AWS::DynamoDB::GlobalTable kms:RevokeGrant': "the tables use DynamoDB's own key: no key is named",
  'AWS::IAM::Policy iam:GetUserPolicy': 'the inline policies are on roles (no Users)',
  'AWS::IAM::Policy iam:PutUserPolicy': 'the inline policies are on roles (no Users)',
  'AWS::IAM::Policy iam:DeleteUserPolicy': 'the inline policies are on roles (no Users)',
  'AWS::IAM::Policy iam:GetGroupPolicy': 'the inline policies are on roles (no Groups)',
  'AWS::IAM::Policy iam:PutGroupPolicy': 'the inline policies are on roles (no Groups)',
  'AWS::IAM::Policy iam:DeleteGroupPolicy': 'the inline policies are on roles (no Groups)',
};

describe('the vendored resource schemas', () => {
  test('cover every resource type of every template (both stages and the CI stack)', () => {
    const schemas = vendoredSchemas();
    const templates: CfnTemplate[] = [...DEPLOYED_STAGES.map((stage) => app.template(stage)), ciTemplate(app)];
    const types = new Set(templates.flatMap((t) => Object.values(t.Resources).map((r) => registryType(r.Type))));
    types.delete('AWS::CDK::Metadata');
    expect(
      [...types].filter((type) => !schemas.has(type)),
      `no schema in support/resource-schemas (${CI_STACK_NAME} included)`,
    ).toEqual([]);
    expect(
      [...schemas.keys()].filter((type) => !types.has(type)),
      'schemas of types no template has',
    ).toEqual([]);
  });
});

describe("PetStore-ci's managed policies", () => {
  // "IAM and AWS STS quotas": a managed policy holds at most 6,144 characters, white space not
  // counted (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html); past
  // that, creating PetStore-ci fails. Counted with the longest commercial region name in place of
  // the tests' region (ap-southeast-7: 14 characters).
  test('each fits the managed policy size quota in any region', () => {
    const ci = ciTemplate(app);
    const policies = Object.values(ci.Resources).filter((r) => r.Type === 'AWS::IAM::ManagedPolicy');
    expect(policies.length).toBeGreaterThanOrEqual(6);
    for (const policy of policies) {
      const text = JSON.stringify(resolveIntrinsics(ci, policy.Properties!.PolicyDocument)).replaceAll(
        TEST_ENV.region,
        'ap-southeast-7',
      );
      expect(text.replace(/\s/g, '').length, policy.Properties!.ManagedPolicyName).toBeLessThanOrEqual(6144);
    }
  });
});

describe.each(DEPLOYED_STAGES)("%s's execution policy and its handlers' permissions", (stage) => {
  const decide = async (policyStage: DeployedStage, request: Request, template: CfnTemplate) =>
    decideFor(
      policyStage,
      executionPolicyOf(ciTemplate(app), policyStage),
      {
        ...request,
        ...(request.resourcePolicy === undefined
          ? {}
          : { resourcePolicy: resolveIntrinsics(template, request.resourcePolicy) }),
      },
      true,
    );
  const unique = (requests: Request[]) => [
    ...new Map(requests.map((r) => [`${r.action} ${r.resource} ${JSON.stringify(r.context)}`, r])).values(),
  ];

  test('allows every permission of every handler, on every ARN it is evaluated on', async () => {
    const template = app.template(stage);
    const { requests } = computed.get(stage)!;
    expect(requests.length).toBeGreaterThan(500);
    const denied: string[] = [];
    for (const request of unique(requests)) {
      const result = await decide(stage, request, template);
      if ((result === 'Allowed') === REFUSED.has(request.action))
        denied.push(`${request.type} ${request.operation}: ${request.action} ${request.resource} → ${result}`);
    }
    expect(denied, 'handler permissions the policy does not allow (or allows against REFUSED)').toEqual([]);
  }, 300_000);

  test('tries every permission on something, but for the ones the template gives no resource to', () => {
    const unnamed = new Set(
      computed
        .get(stage)!
        .skips.filter((s) => s.reason.startsWith('the template names no resource'))
        .map((s) => `${s.type} ${s.action}`),
    );
    const tried = new Set(computed.get(stage)!.requests.map((r) => `${r.type} ${r.action}`));
    // A permission skipped on one resource but tried on another of its type is covered.
    expect([...unnamed].filter((key) => !tried.has(key)).sort()).toEqual(Object.keys(NAMES_NOTHING).sort());
  });

  test("denies the same permissions on the other stage's resources", async () => {
    const other = otherStage(stage);
    const key = (r: Request) => `${r.resource} ${JSON.stringify(r.context)}`;
    const ours = new Set(computed.get(stage)!.requests.map(key));
    const allowed: string[] = [];
    for (const request of unique(computed.get(other)!.requests)) {
      // What both stages use: AWS's extension layer, DynamoDB's replication role, `*`.
      if (ours.has(key(request))) continue;
      if ((await decide(stage, request, app.template(other))) === 'Allowed')
        allowed.push(`${request.type}: ${request.action} ${request.resource}`);
    }
    expect(allowed).toEqual([]);
  }, 300_000);
});
