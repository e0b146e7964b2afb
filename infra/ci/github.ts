// The delivery pipeline's names, shared by the CI stack (infra/ci/ci-stack.ts), the workflows'
// test and the docs: one home for each. No CDK import.
import type { DeployedStage } from '../stages.ts';

export const CI_STACK_NAME = 'PetStore-ci';
/** GitHub Actions' OpenID Connect issuer, and the audience aws-actions/configure-aws-credentials asks for. */
export const GITHUB_OIDC_ISSUER = 'token.actions.githubusercontent.com';
export const GITHUB_OIDC_AUDIENCE = 'sts.amazonaws.com';

/** CDK context (or environment variable GITHUB_REPOSITORY, which GitHub Actions sets) naming OWNER/REPO. */
export const GITHUB_REPOSITORY_CONTEXT = 'githubRepository';
/** CDK context: an existing GitHub OIDC provider's ARN (an account has at most one per issuer). */
export const GITHUB_OIDC_PROVIDER_CONTEXT = 'githubOidcProviderArn';
/**
 * Trusted when no repository is set, so that `cdk synth` still makes the stack: GitHub names
 * cannot contain `_`, so no workflow anywhere can present it. Deploying it trusts nobody.
 */
export const REPOSITORY_PLACEHOLDER = '_unset_/_unset_';

/** The roles the workflows assume, by fixed name: the workflows build their ARNs from the account id. */
export const CI_ROLES = {
  /** Pull requests: `cdk diff`, reading the PetStore stacks' templates only. */
  diff: 'PetStore-ci-diff',
  deploy: (stage: DeployedStage) => `PetStore-ci-deploy-${stage}`,
} as const;

/** The `sub` claim of GitHub's token: a job of `repository` in an environment, or a pull request's job. */
export const subjectFor = (repository: string, who: { environment: string } | 'pull_request'): string =>
  who === 'pull_request' ? `repo:${repository}:pull_request` : `repo:${repository}:environment:${who.environment}`;

/** OWNER/REPO, as GitHub spells it; anything else is refused at synth. */
export const isRepository = (value: string): boolean =>
  /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/.test(value);
