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

/** The only branch any deploy role trusts. */
const MAIN_REF = 'refs/heads/main';
/**
 * The workflow file whose jobs deploy (and smoke-check) each stage: staging.yml, which a push to
 * main runs (deliver.yml) and a release runs first (release.yml); production only from
 * release.yml, which only *Run workflow* starts (docs/deploying.md, "The approval").
 */
export const DEPLOY_WORKFLOWS: Readonly<Record<DeployedStage, string>> = {
  staging: 'staging.yml',
  production: 'release.yml',
};
/** The token's `job_workflow_ref` of a job in `file` (or a workflow it calls) on main. */
const jobWorkflowRef = (repository: string, file: string): string =>
  `${repository}/.github/workflows/${file}@${MAIN_REF}`;

/** The `sub` claim of a pull request's job, in GitHub's default format. */
const pullRequestSubject = (repository: string): string => `repo:${repository}:pull_request`;
/** Any `sub` claim of this repository in GitHub's default format, with or without an environment. */
const repositorySubjects = (repository: string): string => `repo:${repository}:*`;

/**
 * The trust conditions of a deploy role: a token of this repository (its default subject), of
 * a job on main in the stage's workflow file. `ref` and `job_workflow_ref` are claims STS
 * evaluates for GitHub on every plan (the Service Authorization Reference's AWS STS condition
 * keys for AssumeRoleWithWebIdentity); no GitHub environment is needed.
 */
export const deployTrust = (repository: string, stage: DeployedStage) => ({
  StringEquals: {
    [`${GITHUB_OIDC_ISSUER}:aud`]: GITHUB_OIDC_AUDIENCE,
    [`${GITHUB_OIDC_ISSUER}:ref`]: MAIN_REF,
    [`${GITHUB_OIDC_ISSUER}:job_workflow_ref`]: jobWorkflowRef(repository, DEPLOY_WORKFLOWS[stage]),
  },
  StringLike: { [`${GITHUB_OIDC_ISSUER}:sub`]: repositorySubjects(repository) },
});

/** The trust conditions of the diff role: a pull request's job of this repository. */
export const diffTrust = (repository: string) => ({
  StringEquals: {
    [`${GITHUB_OIDC_ISSUER}:aud`]: GITHUB_OIDC_AUDIENCE,
    [`${GITHUB_OIDC_ISSUER}:sub`]: pullRequestSubject(repository),
  },
});

/** OWNER/REPO, as GitHub spells it; anything else is refused at synth. */
export const isRepository = (value: string): boolean =>
  /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/.test(value);
