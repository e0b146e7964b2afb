// The project's CDK bootstrap template (infra/bootstrap/bootstrap-template.yaml) is CDK's own,
// as the installed aws-cdk ships it, with exactly the restrictions listed here: an upgrade of
// aws-cdk that changes CDK's template (a new permission, a new version) fails this test until
// the project's copy takes the change in. What the restrictions achieve is simulated in
// stage-isolation.test.ts.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { BOOTSTRAP_QUALIFIERS } from '../../infra/stage-deployment.ts';
import { DEPLOYED_STAGES, stackName } from '../../infra/stages.ts';
import { failedRules, PROJECT_BOOTSTRAP_TEMPLATE, SHIPPED_BOOTSTRAP_TEMPLATE } from './support/bootstrap.ts';
import { executionPolicyArns } from './support/role-chain.ts';

const read = (path: string) => parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
/** A list of statements by Sid (or their action), so that an added or removed one is named, not renumbered. */
const keyed = (value: unknown): unknown =>
  Array.isArray(value) && value.every(isObject)
    ? Object.fromEntries(value.map((v, i) => [String(v.Sid ?? v.PolicyName ?? v.Action ?? i), v]))
    : value;

/** The paths where two templates differ, down to the first value that differs. */
const differences = (a: unknown, b: unknown, path = ''): string[] => {
  const [x, y] = [keyed(a), keyed(b)];
  if (isObject(x) && isObject(y))
    return [...new Set([...Object.keys(x), ...Object.keys(y)])].flatMap((key) =>
      differences(x[key], y[key], path ? `${path}.${key}` : key),
    );
  return JSON.stringify(x) === JSON.stringify(y) ? [] : [path];
};

const DEPLOY_STATEMENTS = 'Resources.DeploymentActionRole.Properties.Policies.default.PolicyDocument.Statement';

test("differs from CDK's shipped template by the intended restrictions only", () => {
  expect(differences(read(SHIPPED_BOOTSTRAP_TEMPLATE), read(PROJECT_BOOTSTRAP_TEMPLATE)).sort()).toEqual(
    [
      // Its own variant: neither template replaces the other without --force.
      'Parameters.BootstrapVariant.Default',
      // Each qualifier's one stack; any other qualifier fails the bootstrap.
      'Mappings',
      // No AdministratorAccess, and no bootstrap without the stage's execution policy.
      'Rules',
      // Change sets and stacks: its stage's stack only, as its own execution role only.
      `${DEPLOY_STATEMENTS}.DeployPermissions.Action`,
      `${DEPLOY_STATEMENTS}.DeployPermissions.Resource`,
      `${DEPLOY_STATEMENTS}.DeployPermissions.Condition`,
      `${DEPLOY_STATEMENTS}.DeployOwnStack`,
      // CodePipeline's cross-account artifacts, and stack refactors (which move resources between stacks).
      `${DEPLOY_STATEMENTS}.PipelineCrossAccountArtifactsBucket`,
      `${DEPLOY_STATEMENTS}.PipelineCrossAccountArtifactsKey`,
      `${DEPLOY_STATEMENTS}.Refactor`,
      // Its execution role, to CloudFormation only.
      `${DEPLOY_STATEMENTS}.iam:PassRole.Condition`,
      // Delete and termination protection: its stage's stack only.
      `${DEPLOY_STATEMENTS}.CliPermissions.Action`,
      `${DEPLOY_STATEMENTS}.CliPermissions.Resource`,
      // Reads of its stage's stack, instead of AWSCloudFormationReadOnlyAccess on every stack.
      `${DEPLOY_STATEMENTS}.ReadOwnStack`,
      `${DEPLOY_STATEMENTS}.ReadWithoutStack`,
      'Resources.DeploymentActionRole.Properties.ManagedPolicyArns',
    ].sort(),
  );
});

test('names the one stack of each qualifier the app uses', () => {
  const mapping = (read(PROJECT_BOOTSTRAP_TEMPLATE).Mappings as Record<string, Record<string, { StackName: string }>>)
    .StageStack!;
  expect(mapping).toEqual(
    Object.fromEntries(DEPLOYED_STAGES.map((stage) => [BOOTSTRAP_QUALIFIERS[stage], { StackName: stackName(stage) }])),
  );
});

describe('refuses a bootstrap whose CloudFormation would run as AdministratorAccess', () => {
  test.each(DEPLOYED_STAGES)('%s, with its execution policy: bootstraps', (stage) => {
    expect(failedRules(PROJECT_BOOTSTRAP_TEMPLATE, BOOTSTRAP_QUALIFIERS[stage], executionPolicyArns(stage))).toEqual(
      [],
    );
  });
  test('no execution policy (the template would fall back to AdministratorAccess)', () => {
    expect(failedRules(PROJECT_BOOTSTRAP_TEMPLATE, 'petstg', [])).toEqual([
      "Give the stage's execution policy (--cloudformation-execution-policies)",
    ]);
    // CDK's template takes it.
    expect(failedRules(SHIPPED_BOOTSTRAP_TEMPLATE, 'petstg', [])).toEqual([]);
  });
  test('AdministratorAccess named', () => {
    expect(failedRules(PROJECT_BOOTSTRAP_TEMPLATE, 'petstg', ['arn:aws:iam::aws:policy/AdministratorAccess'])).toEqual([
      "A stage's CloudFormation may not run as AdministratorAccess",
    ]);
  });
});
