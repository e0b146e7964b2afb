// The key tool on a deployed stage: its keys table, found from the stack's outputs,
// reached with the caller's AWS credentials.

import { type DeployedStage, STACK_OUTPUTS, stackName } from '../../infra/stages.ts';
import type { KeysRepository } from '../../shared/domain/stores.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { createKeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { fail } from './fail.ts';

export /** The deployed stage's keys table, found from its stack's outputs. */
const deployedKeys = async (stage: DeployedStage): Promise<KeysRepository> => {
  // Loaded only here: the local stage, the common case, should not pay for the CloudFormation client.
  const { CloudFormationClient, DescribeStacksCommand } = await import('@aws-sdk/client-cloudformation');
  const { Stacks } = await new CloudFormationClient({}).send(
    new DescribeStacksCommand({ StackName: stackName(stage) }),
  );
  const tableName = Stacks?.[0]?.Outputs?.find((o) => o.OutputKey === STACK_OUTPUTS.keysTableName)?.OutputValue;
  if (!tableName) fail(`stack ${stackName(stage)} has no ${STACK_OUTPUTS.keysTableName} output; is it deployed?`);
  return createKeysRepository(createDocumentClient(), tableName!);
};
