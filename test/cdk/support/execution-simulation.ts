// A stage's CloudFormation execution role as IAM would decide for it: the execution policy that
// PetStore-ci's template makes for the stage (infra/ci/execution-policy.ts), resolved as a deploy
// in TEST_ENV would, evaluated by @cloud-copilot/iam-simulate (IAM's evaluation logic:
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html).
import { readFileSync } from 'node:fs';
import { runSimulation, runUnsafeSimulation } from '@cloud-copilot/iam-simulate';
import { executionPolicyNames } from '../../../infra/ci/execution-policy.ts';
import { CI_STACK_NAME } from '../../../infra/ci/github.ts';
import { BOOTSTRAP_QUALIFIERS } from '../../../infra/stage-deployment.ts';
import type { DeployedStage } from '../../../infra/stages.ts';
import { resolveIntrinsics } from './intrinsics.ts';
import { type CfnTemplate, type SynthesizedApp, TEST_ENV } from './synth.ts';

const { account: ACCOUNT, region: REGION } = TEST_ENV;

export const ciTemplate = (app: SynthesizedApp): CfnTemplate =>
  JSON.parse(readFileSync(`${app.dir}/${CI_STACK_NAME}.template.json`, 'utf8')) as CfnTemplate;

/** A managed policy's document from PetStore-ci's template, by name, resolved. */
export const managedPolicyOf = (ci: CfnTemplate, name: string): { Statement: unknown[] } => {
  const found = Object.values(ci.Resources).filter(
    (r) => r.Type === 'AWS::IAM::ManagedPolicy' && r.Properties?.ManagedPolicyName === name,
  );
  if (found.length !== 1) throw new Error(`${name}: ${found.length} in ${CI_STACK_NAME}`);
  return resolveIntrinsics(ci, found[0]!.Properties!.PolicyDocument) as { Statement: unknown[] };
};

/**
 * The stage's execution policy, its parts in one document: the role has them all attached, and
 * IAM allows what any of them allows and denies what any denies.
 */
export const executionPolicyOf = (ci: CfnTemplate, stage: DeployedStage): unknown => ({
  Version: '2012-10-17',
  Statement: executionPolicyNames(stage).flatMap((name) => managedPolicyOf(ci, name).Statement),
});

export interface Ask {
  action: string;
  resource: string;
  context?: Record<string, string | string[]>;
  resourcePolicy?: unknown;
}

// A `*` in a requested ARN is a character like any other to IAM (Logs asks for
// `…:log-group:NAME:*`), but the simulator reads it as a wildcard of the request too: it lets
// `…:log-group:X/production:*` pass for a policy's `…:log-group:*/staging`. The request carries
// U+2217 instead, which only a policy's wildcard matches, as only a wildcard matches IAM's literal `*`.
const literal = (resource: string) => (resource === '*' ? resource : resource.replaceAll('*', '\u2217'));

/**
 * IAM's answer to the stage's execution role asking `ask`, under `policy`. `matchedFormat`: the
 * ARN is of a resource type the action takes by IAM's reference, where it gives that type two ARN
 * formats in one string (API Gateway's collections: `…/apis/{id}/deployments, …/restapis/{id}/deployments`)
 * and the simulator reads the first only; then its checks of the request are skipped.
 */
export const decideFor = async (
  stage: DeployedStage,
  policy: unknown,
  ask: Ask,
  matchedFormat = false,
): Promise<string> => {
  const simulation = {
    request: {
      principal: `arn:aws:iam::${ACCOUNT}:role/cdk-${BOOTSTRAP_QUALIFIERS[stage]}-cfn-exec-role-${ACCOUNT}-${REGION}`,
      action: ask.action,
      resource: { resource: literal(ask.resource), accountId: ACCOUNT },
      contextVariables: ask.context ?? {},
    },
    identityPolicies: [{ name: 'execution', policy }] as never,
    ...(ask.resourcePolicy === undefined ? {} : { resourcePolicy: ask.resourcePolicy }),
    serviceControlPolicies: [],
    resourceControlPolicies: [],
  };
  const response = await runSimulation(simulation, {});
  if (response.resultType === 'error') {
    if (matchedFormat && JSON.stringify(response.errors).includes('no.resource.types'))
      return runUnsafeSimulation(simulation, {});
    throw new Error(`${ask.action} ${ask.resource}: ${JSON.stringify(response.errors)}`);
  }
  return response.overallResult;
};
