// The CDK app: one stack per deployed stage, checked by cdk-nag's AWS Solutions and Serverless rules
// on every synth (an unacknowledged finding fails `cdk synth` and `cdk deploy`).
import { App, cx_api, DefaultStackSynthesizer, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { CiStack } from './ci/ci-stack.ts';
import { CI_STACK_NAME, GITHUB_OIDC_PROVIDER_CONTEXT, GITHUB_REPOSITORY_CONTEXT } from './ci/github.ts';
import { alarmDestinationsFor } from './monitoring/alarm-destinations.ts';
import { PetStoreStack } from './pet-store-stack.ts';
import {
  BOOTSTRAP_QUALIFIERS,
  FIRST_DEPLOY_CONTEXT,
  firstDeploySettings,
  stageEnvironment,
} from './stage-deployment.ts';
import { DEPLOYED_STAGES, stackName, stageSettings } from './stages.ts';

/**
 * The app `cdk` runs, without stack traces (`cdk synth --debug` turns them back on): the CLI
 * prints an annotation's first frame outside node_modules, from the annotation's trace or its
 * stack's creation trace, as a bare location line above the message (the CI stack's warning had
 * `file:…/infra/app.ts:35:14`, an ES module's frame is a URL), which reads as stray output; each of
 * our annotations names its fix instead. The CLI refuses `-c aws:…`, so the app sets them.
 */
const cdkApp = (): App => new App({ stackTraces: false, context: { [cx_api.DISABLE_CREATION_STACK_TRACES]: true } });

export const createPetStoreApp = (app: App = cdkApp()): { app: App; stacks: PetStoreStack[]; ci: CiStack } => {
  // docs/deploying.md (The first deploy): every protection off until the stage exists once.
  const firstDeploy = String(app.node.tryGetContext(FIRST_DEPLOY_CONTEXT)) === 'true';
  const stacks = DEPLOYED_STAGES.map(
    (stage) =>
      new PetStoreStack(app, stackName(stage), {
        // Each stage's own account and region, or none: never the CLI's made-up default
        // (docs/deploying.md: Where each stage deploys).
        env: stageEnvironment(stage),
        synthesizer: new DefaultStackSynthesizer({ qualifier: BOOTSTRAP_QUALIFIERS[stage] }),
        settings: firstDeploy ? firstDeploySettings(stageSettings[stage]) : stageSettings[stage],
        alarmDestinations: alarmDestinationsFor(stage, (key) => app.node.tryGetContext(key)),
        description: `Pet Store API, stage ${stage}: REST API, Lambda functions and DynamoDB tables`,
        tags: { project: 'petstore', stage },
      }),
  );
  // What the delivery pipeline assumes (.github/workflows): deployed once, by hand. The
  // repository from CDK context, else from GitHub Actions' own GITHUB_REPOSITORY.
  const ci = new CiStack(app, CI_STACK_NAME, {
    // Deployed by an administrator's credentials, wherever they point.
    repository: app.node.tryGetContext(GITHUB_REPOSITORY_CONTEXT) ?? process.env.GITHUB_REPOSITORY,
    oidcProviderArn: app.node.tryGetContext(GITHUB_OIDC_PROVIDER_CONTEXT),
    description: 'Pet Store delivery pipeline: the GitHub OIDC provider and the roles its workflows assume',
    tags: { project: 'petstore', stage: 'ci' },
  });
  // Serverless rules too: Lambda tracing, API Gateway tracing and logging, timeouts, memory.
  Validations.of(app).addPlugins(
    new AwsSolutionsChecks(app, { verbose: true }),
    new ServerlessChecks(app, { verbose: true }),
  );
  return { app, stacks, ci };
};

// The CLI prints the validation report the synth writes (cdk-nag's findings and every annotation)
// and fails on its errors; the app prints none itself, or a bare `cdk synth` shows each twice.
if (import.meta.main) createPetStoreApp().app.synth();
