// The key tool on a deployed stage: its keys table, REST API and usage plan, found from the
// stack's outputs, reached with the caller's AWS credentials.
import { type DeployedStage, type KeyLimits, STACK_OUTPUTS, stackName } from '../../infra/stages.ts';
import type { KeysRepository } from '../../shared/domain/stores.ts';
import { createDocumentClient } from '../../shared/dynamodb/document-client.ts';
import { createKeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { awsSetupProblem } from '../aws-setup.ts';
import { authorizerCacheFlusher, revokingFlushes } from './authorizer-cache.ts';
import { fail } from './fail.ts';

export /** The deployed stage's keys, each with its API key in the stage's usage plan, and the plan's limits. */
const deployedKeys = async (
  stage: DeployedStage,
): Promise<{ keys: KeysRepository; limits: () => Promise<KeyLimits> }> => {
  // Loaded only here: the local stage, the common case, should not pay for these clients.
  const { CloudFormationClient, DescribeStacksCommand } = await import('@aws-sdk/client-cloudformation');
  const { APIGatewayClient } = await import('@aws-sdk/client-api-gateway');
  const { planLimits, withUsagePlan } = await import('./usage-plan.ts');
  const { Stacks } = await new CloudFormationClient({}).send(
    new DescribeStacksCommand({ StackName: stackName(stage) }),
  );
  const output = (key: string): string => {
    const value = Stacks?.[0]?.Outputs?.find((o) => o.OutputKey === key)?.OutputValue;
    return value ?? fail(`stack ${stackName(stage)} has no ${key} output; is it deployed?`);
  };
  const plan = {
    client: new APIGatewayClient({}),
    usagePlanId: output(STACK_OUTPUTS.usagePlanId),
    stage,
  };
  const keys = withUsagePlan(createKeysRepository(createDocumentClient(), output(STACK_OUTPUTS.keysTableName)), plan);
  // A revoke also disables the key's API key (usage-plan.ts) and flushes API Gateway's
  // authorizer cache (authorizer-cache.ts): the key is refused at once.
  const flush = authorizerCacheFlusher(output(STACK_OUTPUTS.restApiId), stage, plan.client);
  return { keys: revokingFlushes(keys, flush, stage), limits: () => planLimits(plan) };
};

/**
 * What went wrong with a deployed stage, and what to do, in a line or two: the SDK's
 * errors carry a stack of thirty lines that says neither.
 */
export const deployedStageFailure = (error: unknown, stage: DeployedStage): string => {
  const { name = 'Error', message = String(error) } = (error ?? {}) as { name?: string; message?: string };
  const where = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  const setup = awsSetupProblem(error);
  if (setup) return setup;
  if (name === 'ValidationError' && /does not exist/i.test(message)) {
    return `stack ${stackName(stage)} does not exist in ${where ?? 'this region'}: deploy it first (README, Deploying), or set AWS_PROFILE and AWS_REGION to the account and region it is in.`;
  }
  if (/AccessDenied|UnrecognizedClient|ExpiredToken|InvalidClientTokenId/.test(name)) {
    return `AWS refused the request (${name}): ${message}. Check that AWS_PROFILE names credentials that may read stack ${stackName(stage)} and its keys table.`;
  }
  return `stage ${stage}: ${name}: ${message}`;
};
