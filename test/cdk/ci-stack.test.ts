// PetStore-ci: GitHub's OIDC provider and the roles the workflows assume, trusted only for
// this repository; a deploy role per stage only for jobs on main of that stage's workflow file
// (no GitHub environment), and able only to assume its own stage's CDK bootstrap roles
// (per-stage qualifier) and read its smoke key, in any region; the diff role only for pull
// requests, and able only to read the PetStore stacks' templates (not the lookup role: it reads
// data). What the trust policies admit, token by token: github-trust.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { CiStack } from '../../infra/ci/ci-stack.ts';
import { CI_ROLES, CI_STACK_NAME, DEPLOY_WORKFLOWS, REPOSITORY_PLACEHOLDER } from '../../infra/ci/github.ts';
import { BOOTSTRAP_QUALIFIERS } from '../../infra/stage-deployment.ts';
import { DEPLOYED_STAGES } from '../../infra/stages.ts';
import { roleOf, workflow } from '../support/workflows.ts';
import { type CfnTemplate, type SynthesizedApp, synthesized, TEST_REPOSITORY } from './support/synth.ts';
import { render, resourcesOfType } from './support/template.ts';

const REPOSITORY = 'acme/petstore';
/** The one secret each stage's deploy role may read, written out here (not from infra/stages.ts). */
const SMOKE_KEY_SECRETS = {
  staging: 'PetStore-staging/smoke-write-key',
  production: 'PetStore-production/smoke-canary-key',
};
const build = (props: { repository: string | undefined; oidcProviderArn?: string }) => {
  const stack = new CiStack(new App(), CI_STACK_NAME, props);
  return { stack, template: Template.fromStack(stack).toJSON() as CfnTemplate };
};

const roleNamed = (template: CfnTemplate, roleName: string) => {
  const found = resourcesOfType(template, 'AWS::IAM::Role').find(([, r]) => r.Properties!.RoleName === roleName);
  expect(found, roleName).toBeDefined();
  return found![1].Properties!;
};
const bootstrap = (qualifier: string, kind: string) =>
  `arn:\${AWS::Partition}:iam::\${AWS::AccountId}:role/cdk-${qualifier}-${kind}-role-\${AWS::AccountId}-*`;

describe('trust', () => {
  const { template } = build({ repository: REPOSITORY });
  const [providerId, provider] = resourcesOfType(template, 'AWS::IAM::OIDCProvider')[0]!;

  it("has GitHub's OIDC provider, for the STS audience", () => {
    expect(resourcesOfType(template, 'AWS::IAM::OIDCProvider')).toHaveLength(1);
    expect(provider.Properties).toEqual({
      Url: 'https://token.actions.githubusercontent.com',
      ClientIdList: ['sts.amazonaws.com'],
    });
  });

  const trustOf = (roleName: string) => roleNamed(template, roleName).AssumeRolePolicyDocument.Statement;
  const trusting = (Condition: unknown) => [
    {
      Effect: 'Allow',
      Action: 'sts:AssumeRoleWithWebIdentity',
      Principal: { Federated: { Ref: providerId } },
      Condition,
    },
  ];

  it.each(DEPLOYED_STAGES)(
    'the %s deploy role: only jobs of this repository on main, of the workflow file that deploys it',
    (stage) => {
      expect(trustOf(CI_ROLES.deploy(stage))).toEqual(
        trusting({
          StringEquals: {
            'token.actions.githubusercontent.com:aud': 'sts.amazonaws.com',
            'token.actions.githubusercontent.com:ref': 'refs/heads/main',
            'token.actions.githubusercontent.com:job_workflow_ref': `${REPOSITORY}/.github/workflows/${stage === 'staging' ? 'staging.yml' : 'release.yml'}@refs/heads/main`,
          },
          StringLike: { 'token.actions.githubusercontent.com:sub': `repo:${REPOSITORY}:*` },
        }),
      );
    },
  );

  it('the diff role: only pull requests of this repository', () => {
    expect(trustOf(CI_ROLES.diff)).toEqual(
      trusting({
        StringEquals: {
          'token.actions.githubusercontent.com:aud': 'sts.amazonaws.com',
          'token.actions.githubusercontent.com:sub': `repo:${REPOSITORY}:pull_request`,
        },
      }),
    );
  });

  it.each(DEPLOYED_STAGES)(
    "the %s deploy role may only assume its stage's bootstrap roles (no lookup role), read its stack's status and its smoke key, in any region",
    (stage) => {
      const role = roleNamed(template, CI_ROLES.deploy(stage));
      expect(role.ManagedPolicyArns).toBeUndefined();
      const statements = role.Policies.flatMap(
        (p: { PolicyDocument: { Statement: unknown[] } }) => p.PolicyDocument.Statement,
      );
      expect(statements).toHaveLength(3);
      expect(statements[0].Action).toBe('sts:AssumeRole');
      expect(statements[0].Resource.map(render).sort()).toEqual(
        ['deploy', 'file-publishing'].map((kind) => bootstrap(BOOTSTRAP_QUALIFIERS[stage], kind)).sort(),
      );
      expect(statements[1].Action).toBe('cloudformation:DescribeStacks');
      expect(render(statements[1].Resource)).toBe(
        `arn:\${AWS::Partition}:cloudformation:*:\${AWS::AccountId}:stack/PetStore-${stage}/*`,
      );
      expect(statements[2].Action).toBe('secretsmanager:GetSecretValue');
      // Staging's smoke run checks everything with the write key its stack mints; production's
      // is read-only ("Against production it is always read-only"), with its canary's read key.
      expect(render(statements[2].Resource)).toBe(
        `arn:\${AWS::Partition}:secretsmanager:*:\${AWS::AccountId}:secret:${SMOKE_KEY_SECRETS[stage]}-??????`,
      );
      // No region of this stack's in any of them: a stage may deploy to another region.
      expect(JSON.stringify(statements)).not.toContain('AWS::Region');
      // Nothing else grants it anything.
      expect(resourcesOfType(template, 'AWS::IAM::Policy')).toEqual([]);
    },
  );

  it('the diff role may only read the PetStore stacks and their templates: no role to assume, no data', () => {
    const role = roleNamed(template, CI_ROLES.diff);
    expect(role.ManagedPolicyArns).toBeUndefined();
    const statements = role.Policies.flatMap(
      (p: { PolicyDocument: { Statement: { Resource: unknown }[] } }) => p.PolicyDocument.Statement,
    );
    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: ['cloudformation:DescribeStacks', 'cloudformation:GetTemplate'],
        Resource: expect.anything(),
      },
    ]);
    expect(render(statements[0]!.Resource)).toBe(
      `arn:\${AWS::Partition}:cloudformation:*:\${AWS::AccountId}:stack/PetStore-*/*`,
    );
  });

  // A deploy's CDK CLI assumes the bootstrap's roles with the job's credentials and refreshes them as
  // they run out: credentials that expire before the job ends fail a deploy CloudFormation goes on
  // with (a first deploy is two; production's release waits out its canary). The job's session:
  // configure-aws-credentials' role-duration-seconds (3,600 s unless set, its README), at most the
  // role's MaxSessionDuration (IAM's maximum session duration); the job: its timeout-minutes.
  it("a deploy job's credentials outlive the job; every other session lasts at most an hour", () => {
    const roles = new Map(
      resourcesOfType(template, 'AWS::IAM::Role').map(([, r]) => [
        r.Properties!.RoleName as string,
        r.Properties!.MaxSessionDuration as number,
      ]),
    );
    for (const stage of DEPLOYED_STAGES) {
      const job = workflow(DEPLOY_WORKFLOWS[stage] as 'staging.yml' | 'release.yml').jobs[`deploy-${stage}`]!;
      const configure = job.steps!.find((step) => step.uses?.startsWith('aws-actions/configure-aws-credentials@'))!;
      const session = Number(configure.with?.['role-duration-seconds'] ?? 3600);
      expect(session, stage).toBeGreaterThan(job['timeout-minutes']! * 60);
      expect(session, stage).toBeLessThanOrEqual(roles.get(CI_ROLES.deploy(stage))!);
    }
    expect(roles.get(CI_ROLES.diff)).toBe(3600);
  });
});

describe('the repository', () => {
  it('unset: the stack trusts a name no GitHub repository can have, and synth warns', () => {
    const { stack, template } = build({ repository: undefined });
    expect(JSON.stringify(template)).toContain(
      `${REPOSITORY_PLACEHOLDER}/.github/workflows/release.yml@refs/heads/main`,
    );
    expect(REPOSITORY_PLACEHOLDER).toMatch(/_/);
    Annotations.fromStack(stack).hasWarning('*', Match.stringLikeRegexp('trusts no repository'));
  });

  it('anything but OWNER/REPO is refused', () => {
    expect(() => build({ repository: 'acme' })).toThrow(/OWNER\/REPO/);
    expect(() => build({ repository: 'acme/petstore:ref:refs/heads/main' })).toThrow(/OWNER\/REPO/);
  });

  it('an existing OIDC provider is trusted instead of a new one', () => {
    const arn = 'arn:aws:iam::123456789012:oidc-provider/token.actions.githubusercontent.com';
    const { template } = build({ repository: REPOSITORY, oidcProviderArn: arn });
    expect(resourcesOfType(template, 'AWS::IAM::OIDCProvider')).toEqual([]);
    expect(roleNamed(template, CI_ROLES.diff).AssumeRolePolicyDocument.Statement[0].Principal).toEqual({
      Federated: arn,
    });
  });
});

describe('the app and the workflows', () => {
  let app: SynthesizedApp;
  beforeAll(async () => {
    app = await synthesized();
  }, 300_000);

  it('the app synthesizes PetStore-ci beside the stages, with no cdk-nag finding but the reviewed ones', () => {
    const template = JSON.parse(readFileSync(join(app.dir, `${CI_STACK_NAME}.template.json`), 'utf8')) as CfnTemplate;
    expect(resourcesOfType(template, 'AWS::IAM::Role')).toHaveLength(3);
    expect(JSON.stringify(template)).toContain(`${TEST_REPOSITORY}/.github/workflows/release.yml@refs/heads/main`);
    // The diff role reads its own stacks' templates, each deploy role its own stack's status, its
    // bootstrap roles and its smoke key, in any region: their ARNs end in an id only a wildcard
    // names, or in the region.
    const finding = (resource: string) => `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:${resource}]`;
    const stackArn = (name: string) => finding(`cloudformation:*:<AWS::AccountId>:stack/${name}/*`);
    const ciFindings = app.nagFindings.filter((f) => f.path.startsWith(`${CI_STACK_NAME}/`));
    // The execution policies' (two per stage) and the boundaries' wildcard resources:
    // test/cdk/execution-policy-coverage.test.ts and permissions-boundary.test.ts simulate them.
    const onExecutionPolicy = (f: { path: string }) => /^PetStore-ci\/(CfnExec|Boundary)-/.test(f.path);
    for (const finding of ciFindings.filter(onExecutionPolicy))
      expect(finding.rule).toMatch(/^AwsSolutions-IAM5\[Resource::/);
    expect(resourcesOfType(template, 'AWS::IAM::ManagedPolicy')).toHaveLength(3 * DEPLOYED_STAGES.length);
    expect(ciFindings.filter((f) => !onExecutionPolicy(f))).toEqual([
      { path: `${CI_STACK_NAME}/${CI_ROLES.diff}/Resource`, rule: stackArn('PetStore-*') },
      ...DEPLOYED_STAGES.flatMap((stage) =>
        [
          ...['deploy', 'file-publishing'].map((kind) =>
            finding(`iam::<AWS::AccountId>:role/cdk-${BOOTSTRAP_QUALIFIERS[stage]}-${kind}-role-<AWS::AccountId>-*`),
          ),
          stackArn(`PetStore-${stage}`),
          finding(`secretsmanager:*:<AWS::AccountId>:secret:${SMOKE_KEY_SECRETS[stage]}-??????`),
        ].map((rule) => ({ path: `${CI_STACK_NAME}/${CI_ROLES.deploy(stage)}/Resource`, rule })),
      ),
    ]);
  });

  it("each deploy job assumes its stage's role from the workflow file that role trusts", () => {
    for (const stage of DEPLOYED_STAGES) {
      const { jobs } = workflow(DEPLOY_WORKFLOWS[stage] as 'staging.yml' | 'release.yml');
      expect(roleOf(jobs[`deploy-${stage}`]!)).toBe(CI_ROLES.deploy(stage));
    }
    expect(roleOf(workflow('ci.yml').jobs.diff!)).toBe(CI_ROLES.diff);
  });
});
