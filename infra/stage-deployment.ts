// Where each deployed stage goes and how its first deploy runs: the account and region a stage
// may be pinned to, its own CDK bootstrap, and the settings of a first deploy that can be retried.
// Beside infra/stages.ts (the stages' settings); no CDK import, so that tools load it too.
import type { DeployedStage, StageSettings } from './stages.ts';

// ── Where each stage deploys (docs/deploying.md: Where each stage deploys) ──
/** PETSTORE_AWS_ACCOUNT_<STAGE> and PETSTORE_AWS_REGION_<STAGE>: a stage pinned to its account and region. */
export const stageAccountEnvVar = (stage: DeployedStage): string => `PETSTORE_AWS_ACCOUNT_${stage.toUpperCase()}`;
export const stageRegionEnvVar = (stage: DeployedStage): string => `PETSTORE_AWS_REGION_${stage.toUpperCase()}`;

/**
 * A stage's account and region: both from its own variables, or neither (the stack is
 * environment-agnostic and the deploy's credentials and region name them). Never the CLI's
 * CDK_DEFAULT_ACCOUNT/REGION: with no credentials and no region the CLI makes those up
 * (us-east-1), and an assembly synthesized once for both stages would carry them.
 */
export const stageEnvironment = (
  stage: DeployedStage,
  env: NodeJS.ProcessEnv = process.env,
): { account: string; region: string } | undefined => {
  const account = env[stageAccountEnvVar(stage)] || undefined;
  const region = env[stageRegionEnvVar(stage)] || undefined;
  if (account === undefined && region === undefined) return undefined;
  if (account === undefined || !/^\d{12}$/.test(account))
    throw new Error(
      `${stageAccountEnvVar(stage)} must be a 12-digit account id when ${stageRegionEnvVar(stage)} is set`,
    );
  if (region === undefined || !/^[a-z]{2}(-[a-z]+)+-\d$/.test(region))
    throw new Error(
      `${stageRegionEnvVar(stage)} must be a region such as eu-west-1 when ${stageAccountEnvVar(stage)} is set`,
    );
  return { account, region };
};

/**
 * Each stage's own CDK bootstrap (`cdk bootstrap --qualifier`): its own deploy, publishing and
 * CloudFormation execution roles, so that staging's credentials cannot assume production's.
 * At most 10 alphanumeric characters (CDK's limit).
 */
export const BOOTSTRAP_QUALIFIERS: Readonly<Record<DeployedStage, string>> = {
  staging: 'petstg',
  production: 'petprd',
};

// ── A first deploy that can be retried (docs/deploying.md: The first deploy) ──
/** CDK context that marks the first deploy of a stage: `cdk deploy PetStore-production -c firstDeploy=true`. */
export const FIRST_DEPLOY_CONTEXT = 'firstDeploy';

/**
 * The settings of a stage's first deploy: no termination protection, no deletion protection,
 * nothing retained. Should the create fail, CloudFormation removes everything it made and the
 * same command can simply run again (the CDK CLI deletes a stack left in ROLLBACK_COMPLETE
 * first, which termination protection would refuse; retained, deletion-protected tables and
 * log groups would stay behind). The next deploy without the flag turns every protection on,
 * while the tables are still empty.
 */
export const firstDeploySettings = (settings: StageSettings): StageSettings => ({
  ...settings,
  removalPolicy: 'destroy',
  deletionProtection: false,
  terminationProtection: false,
});

// ── Where a stage can be deployed at all (docs/deploying.md: Regions) ──
/**
 * AWS's Parameters and Secrets Lambda Extension as listPets carries it (its cursor secret,
 * shared/lambda/cursor-secret.ts): the version and architecture whose layer ARN CDK looks up per
 * region (aws-cdk-lib/region-info). In a region CDK knows no ARN for, the stage's change set is
 * refused, so `npm run deploy` refuses first (tools/deploy/region.ts).
 */
export const EXTENSION_LAYER = { version: '1.0.103', architecture: 'arm64' } as const;
