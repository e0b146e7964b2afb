// The CDK app: one stack per deployed stage, checked by cdk-nag's AWS Solutions and Serverless rules
// on every synth (an unacknowledged finding fails `cdk synth` and `cdk deploy`).
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { alarmDestinationsFor } from './monitoring/alarm-destinations.ts';
import { PetStoreStack } from './pet-store-stack.ts';
import { DEPLOYED_STAGES, FIRST_DEPLOY_CONTEXT, firstDeploySettings, stackName, stageSettings } from './stages.ts';

export const createPetStoreApp = (app: App = new App()): { app: App; stacks: PetStoreStack[] } => {
  // The account and region of the CLI's credentials and profile; unset (no AWS access)
  // the stacks stay environment-agnostic, which synthesizes all the same.
  const env = { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION };
  // docs/deploying.md (The first deploy): every protection off until the stage exists once.
  const firstDeploy = String(app.node.tryGetContext(FIRST_DEPLOY_CONTEXT)) === 'true';
  const stacks = DEPLOYED_STAGES.map(
    (stage) =>
      new PetStoreStack(app, stackName(stage), {
        env,
        settings: firstDeploy ? firstDeploySettings(stageSettings[stage]) : stageSettings[stage],
        alarmDestinations: alarmDestinationsFor(stage, (key) => app.node.tryGetContext(key)),
        description: `Pet Store API, stage ${stage}: REST API, Lambda functions and DynamoDB tables`,
        tags: { project: 'petstore', stage },
      }),
  );
  // Serverless rules too: Lambda tracing, API Gateway tracing and logging, timeouts, memory.
  Validations.of(app).addPlugins(
    new AwsSolutionsChecks(app, { verbose: true }),
    new ServerlessChecks(app, { verbose: true }),
  );
  return { app, stacks };
};

if (import.meta.main) createPetStoreApp().app.synth();
