// PetStore-ci: what lets GitHub Actions deliver this repository without a long-lived AWS key.
// GitHub's OpenID Connect provider, and three roles that trust a token from it only for this
// repository: the diff role (pull requests), which may only read the PetStore stacks'
// templates; and a deploy role per stage (jobs on main of that stage's workflow file: no GitHub
// environment, so on every plan), which may only assume the bootstrap roles that deploy and
// read its stage's smoke key; and each
// stage's CloudFormation execution policy, which that stage's bootstrap gives its execution role
// (infra/ci/execution-policy.ts). Deployed once, by an administrator (docs/deploying.md, "The pipeline").
import { Annotations, Aws, CfnOutput, Duration, Fn, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import {
  FederatedPrincipal,
  type IOidcProvider,
  ManagedPolicy,
  OidcProviderNative,
  PolicyDocument,
  PolicyStatement,
  Role,
} from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { BOOTSTRAP_QUALIFIERS } from '../stage-deployment.ts';
import { DEPLOYED_STAGES, pipelineSmokeKeySecretName, stackName } from '../stages.ts';
import { executionPolicyNames, executionPolicyParts } from './execution-policy.ts';
import {
  CI_ROLES,
  DEPLOY_WORKFLOWS,
  deployTrust,
  diffTrust,
  GITHUB_OIDC_AUDIENCE,
  GITHUB_OIDC_ISSUER,
  GITHUB_REPOSITORY_CONTEXT,
  isRepository,
  REPOSITORY_PLACEHOLDER,
} from './github.ts';
import { permissionsBoundaryName, permissionsBoundaryStatements } from './permissions-boundary.ts';

export interface CiStackProps extends StackProps {
  /** OWNER/REPO; undefined: the placeholder, which no workflow can present (synth warns). */
  readonly repository: string | undefined;
  /** An existing provider for GitHub's issuer in the account; undefined: this stack makes one. */
  readonly oidcProviderArn?: string | undefined;
}

/** The allowed resources of a policy that hold a wildcard, spelt as cdk-nag's findings name them. */
const wildcardResources = (stack: Stack, document: PolicyDocument): string[] => {
  const spell = (value: unknown): string => {
    if (typeof value === 'string') return value;
    const object = value as { Ref?: string; 'Fn::Join'?: [string, unknown[]] };
    if (object.Ref !== undefined) return `<${object.Ref}>`;
    const [separator, parts] = object['Fn::Join']!;
    return parts.map(spell).join(separator);
  };
  const statements = (stack.resolve(document.toJSON()) as { Statement: { Effect: string; Resource: unknown }[] })
    .Statement;
  const resources = statements
    .filter((statement) => statement.Effect === 'Allow')
    .flatMap((statement) => (Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource]))
    .map(spell);
  return [...new Set(resources.filter((resource) => resource.includes('*')))];
};

/**
 * A bootstrap role of this account, by qualifier and kind (deploy, file-publishing…), in any
 * region: IAM is global and the role's name ends in its region, and a stage may deploy to a
 * region other than this stack's (docs/deploying.md, "Where each stage deploys").
 */
const bootstrapRole = (qualifier: string, kind: string): string =>
  `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:role/cdk-${qualifier}-${kind}-role-${Aws.ACCOUNT_ID}-*`;
/** A stack of this account in any region. */
const stackArn = (name: string): string => `arn:${Aws.PARTITION}:cloudformation:*:${Aws.ACCOUNT_ID}:stack/${name}/*`;

/**
 * A deploy job's session: the workflows ask for as long (role-duration-seconds) and stop their
 * deploy jobs before it ends (timeout-minutes), test/cdk/ci-stack.test.ts holds them to it.
 */
const DEPLOY_SESSION = Duration.hours(2);

export class CiStack extends Stack {
  readonly provider: IOidcProvider;
  readonly diffRole: Role;
  readonly deployRoles: Readonly<Record<string, Role>>;
  /** Each stage's CloudFormation execution policy (two parts): its bootstrap's execution role gets them (docs/deploying.md). */
  readonly executionPolicies: Readonly<Record<string, ManagedPolicy[]>>;
  /** Each stage's permissions boundary, which every role of the stage's stack carries. */
  readonly permissionsBoundaries: Readonly<Record<string, ManagedPolicy>>;

  constructor(scope: Construct, id: string, { repository, oidcProviderArn, ...props }: CiStackProps) {
    super(scope, id, props);
    if (repository !== undefined && !isRepository(repository))
      throw new Error(`${GITHUB_REPOSITORY_CONTEXT} must be OWNER/REPO, got "${repository}"`);
    if (repository === undefined)
      Annotations.of(this).addWarningV2(
        'petstore:github-repository',
        `${id} trusts no repository: set CDK context "${GITHUB_REPOSITORY_CONTEXT}" (OWNER/REPO) before deploying it (docs/deploying.md, "The pipeline").`,
      );
    const trusted = repository ?? REPOSITORY_PLACEHOLDER;

    this.provider = oidcProviderArn
      ? OidcProviderNative.fromOidcProviderArn(this, 'GitHub', oidcProviderArn)
      : new OidcProviderNative(this, 'GitHub', {
          url: `https://${GITHUB_OIDC_ISSUER}`,
          clientIds: [GITHUB_OIDC_AUDIENCE],
        });

    const assumable = (
      roleName: string,
      conditions: Record<string, Record<string, string>>,
      description: string,
      statements: PolicyStatement[],
      maxSessionDuration = Duration.hours(1),
    ) =>
      new Role(this, roleName, {
        roleName,
        description,
        // A workflow job's token, from this repository, with exactly these claims (infra/ci/github.ts).
        assumedBy: new FederatedPrincipal(this.provider.oidcProviderArn, conditions, 'sts:AssumeRoleWithWebIdentity'),
        maxSessionDuration,
        inlinePolicies: { access: new PolicyDocument({ statements }) },
      });

    this.diffRole = assumable(
      CI_ROLES.diff,
      diffTrust(trusted),
      `cdk diff for pull requests of ${trusted}: reads the PetStore stacks' templates, nothing else`,
      // Not the bootstrap lookup role: it has ReadOnlyAccess, which reads the tables, the logs and
      // the canary's reports, and a pull request's workflow is its author's to write. `cdk diff
      // --method template` needs the deployed templates only (the CLI reads them with these
      // credentials when it may not assume the lookup role).
      [
        new PolicyStatement({
          actions: ['cloudformation:DescribeStacks', 'cloudformation:GetTemplate'],
          resources: [stackArn('PetStore-*')],
        }),
      ],
    );
    Validations.of(this.diffRole).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:cloudformation:*:<AWS::AccountId>:stack/PetStore-*/*]',
      reason:
        "Reading the templates of this project's stacks (PetStore-staging, -production, -ci), in whichever region " +
        "each deploys: a stack's ARN ends in an id CloudFormation makes at its creation, so only a wildcard names it. " +
        'Describe and GetTemplate only.',
    });
    this.deployRoles = Object.fromEntries(
      DEPLOYED_STAGES.map((stage) => [
        stage,
        assumable(
          CI_ROLES.deploy(stage),
          deployTrust(trusted, stage),
          `npm run deploy of ${stage} from ${trusted}'s ${DEPLOY_WORKFLOWS[stage]} on main: its stage's CDK bootstrap roles and smoke key, nothing else`,
          [
            // What `cdk deploy --app cdk.out` assumes: publish the (file) assets, deploy the stack.
            // Only this stage's bootstrap (its own qualifier, whose CloudFormation execution role
            // is scoped to this stage: docs/deploying.md), and no lookup role: nothing looks
            // anything up, and its ReadOnlyAccess reads every table and log of the account.
            new PolicyStatement({
              actions: ['sts:AssumeRole'],
              resources: ['deploy', 'file-publishing'].map((kind) => bootstrapRole(BOOTSTRAP_QUALIFIERS[stage], kind)),
            }),
            // tools/deploy asks whether the stage's stack exists before choosing its first deploy.
            new PolicyStatement({
              actions: ['cloudformation:DescribeStacks'],
              resources: [stackArn(stackName(stage))],
            }),
            // The smoke run's key, which the stack mints: the stage's write key where it has one
            // (staging: every check), else its canary key (a read key: read-only checks).
            new PolicyStatement({
              actions: ['secretsmanager:GetSecretValue'],
              resources: [
                `arn:${Aws.PARTITION}:secretsmanager:*:${Aws.ACCOUNT_ID}:secret:${pipelineSmokeKeySecretName(stage)}-??????`,
              ],
            }),
          ],
          // Longer than a deploy job may run (its timeout-minutes): the CDK CLI refreshes the
          // bootstrap roles' credentials from these, and a first deploy is two deploys.
          DEPLOY_SESSION,
        ),
      ]),
    );

    for (const stage of DEPLOYED_STAGES) {
      const acknowledge = (resource: string, reason: string) =>
        Validations.of(this.deployRoles[stage]!).acknowledge({
          id: `AwsSolutions-IAM5[Resource::${resource}]`,
          reason,
        });
      const region = 'in whichever region the stage deploys (docs/deploying.md, "Where each stage deploys")';
      acknowledge(
        `arn:<AWS::Partition>:cloudformation:*:<AWS::AccountId>:stack/${stackName(stage)}/*`,
        `DescribeStacks of ${stackName(stage)} alone, ${region}: a stack's ARN ends in an id CloudFormation makes ` +
          'at its creation, so only a wildcard names it before it exists.',
      );
      for (const kind of ['deploy', 'file-publishing'])
        acknowledge(
          `arn:<AWS::Partition>:iam::<AWS::AccountId>:role/cdk-${BOOTSTRAP_QUALIFIERS[stage]}-${kind}-role-<AWS::AccountId>-*`,
          `The stage's own bootstrap ${kind} role, ${region}: its name ends in the region.`,
        );
      acknowledge(
        `arn:<AWS::Partition>:secretsmanager:*:<AWS::AccountId>:secret:${pipelineSmokeKeySecretName(stage)}-??????`,
        `GetSecretValue of ${stackName(stage)}'s smoke key alone, ${region}: Secrets Manager ends a secret's ARN ` +
          'in six characters it chooses.',
      );
    }

    // Here, not in the stages' stacks: an administrator deploys this stack, so a stage's own
    // deploy cannot widen what its CloudFormation may do.
    this.executionPolicies = Object.fromEntries(
      DEPLOYED_STAGES.map((stage) => [
        stage,
        executionPolicyParts(stage).map(
          (statements, i) =>
            new ManagedPolicy(this, i === 0 ? `CfnExec-${stage}` : `CfnExec-${stage}-${i + 1}`, {
              managedPolicyName: executionPolicyNames(stage)[i]!,
              description: `What CloudFormation may do deploying ${stackName(stage)} (part ${i + 1}): its bootstrap's (qualifier ${BOOTSTRAP_QUALIFIERS[stage]}) execution policy`,
              statements,
            }),
        ),
      ]),
    );
    this.permissionsBoundaries = Object.fromEntries(
      DEPLOYED_STAGES.map((stage) => [
        stage,
        new ManagedPolicy(this, `Boundary-${stage}`, {
          managedPolicyName: permissionsBoundaryName(stage),
          description: `The permissions boundary of every role ${stackName(stage)} creates`,
          statements: permissionsBoundaryStatements(stage),
        }),
      ]),
    );
    for (const stage of DEPLOYED_STAGES) {
      for (const policy of this.executionPolicies[stage]!)
        for (const resource of wildcardResources(this, policy.document))
          Validations.of(policy).acknowledge({
            id: `AwsSolutions-IAM5[Resource::${resource}]`,
            reason:
              `Names under ${stackName(stage)} (CloudFormation's generated names start with the stack's name; ` +
              "ours are given so), or a documented wildcard where a service's ARNs hold only ids it makes, kept off " +
              "other stacks' resources by a deny on their aws:cloudformation:stack-name tag: infra/ci/execution-policy.ts.",
          });
      const boundary = this.permissionsBoundaries[stage]!;
      for (const resource of wildcardResources(this, boundary.document))
        Validations.of(boundary).acknowledge({
          id: `AwsSolutions-IAM5[Resource::${resource}]`,
          reason:
            `A permissions boundary: the most any role of ${stackName(stage)} may do, on names under the stack's ` +
            "name, or `*` for the actions IAM grants on `*` only (traces, metrics, a release hook's answer). Each " +
            "role's own policy narrows it: infra/ci/permissions-boundary.ts.",
        });
    }

    // What the workflows assume (they build the same ARNs from the account id and the names).
    const outputs: [string, Role][] = [
      ['DiffRoleArn', this.diffRole],
      ...DEPLOYED_STAGES.map((stage): [string, Role] => [
        `DeployRoleArn${stage[0]!.toUpperCase()}${stage.slice(1)}`,
        this.deployRoles[stage]!,
      ]),
    ];
    for (const [key, role] of outputs)
      new CfnOutput(this, key, { key, description: role.node.id, value: role.roleArn });
    // What `cdk bootstrap --cloudformation-execution-policies` names, per stage (a comma-separated list).
    for (const stage of DEPLOYED_STAGES) {
      const key = `CfnExecPolicyArns${stage[0]!.toUpperCase()}${stage.slice(1)}`;
      const policies = this.executionPolicies[stage]!;
      new CfnOutput(this, key, {
        key,
        description: executionPolicyNames(stage).join(', '),
        value: Fn.join(
          ',',
          policies.map((policy) => policy.managedPolicyArn),
        ),
      });
    }
  }
}
