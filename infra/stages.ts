// Settings shared by every stage. Per-stage settings join them here (issue: CDK stacks).

/** Every function's timeout: API Gateway's own limit is 29 s, so a slow function is ours to cut. */
export const FUNCTION_TIMEOUT_SECONDS = 10;

/** How long API Gateway caches an authorizer's answer per token, deployed. */
export const DEPLOYED_AUTHORIZER_CACHE_TTL_SECONDS = 300;

export type DeployedStage = 'staging' | 'production';
export const DEPLOYED_STAGES: readonly DeployedStage[] = ['staging', 'production'];

export const stackName = (stage: DeployedStage): string => `PetStore-${stage}`;

/** CloudFormation output keys of each stage's stack; the key tool reads them. */
export const STACK_OUTPUTS = {
  baseUrl: 'BaseUrl',
  petsTableName: 'PetsTableName',
  keysTableName: 'KeysTableName',
} as const;
