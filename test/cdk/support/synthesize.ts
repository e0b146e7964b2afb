// The heavy half of the CDK test support: builds the app in this process (aws-cdk-lib,
// cdk-nag, bundling with esbuild) and gathers what the tests read besides the assembly.
// Loaded only when the cached assembly is missing or stale (support/synth.ts).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, type CfnElement, type Stack, Validations } from 'aws-cdk-lib';
import * as cxapi from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { createPetStoreApp } from '../../../infra/app.ts';
import { GITHUB_REPOSITORY_CONTEXT } from '../../../infra/ci/github.ts';
import { alarmDestinationsContextKey } from '../../../infra/monitoring/alarm-destinations.ts';
import type { PetStoreStack } from '../../../infra/pet-store-stack.ts';
import { REPOSITORY_ROOT } from '../../../infra/repository-root.ts';
import { stageAccountEnvVar, stageRegionEnvVar } from '../../../infra/stage-deployment.ts';
import { DEPLOYED_STAGES } from '../../../infra/stages.ts';
import {
  type Acknowledgement,
  type NagFinding,
  type StackIndex,
  type Synthesis,
  TEST_ALARM_DESTINATION,
  TEST_ENV,
  TEST_REPOSITORY,
} from './synth.ts';

const logicalId = (construct: IConstruct): string => {
  const element = (construct.node.defaultChild ?? construct) as CfnElement;
  return (element.stack as Stack).getLogicalId(element);
};

const indexOf = (stack: PetStoreStack): StackIndex => ({
  tables: Object.fromEntries(Object.entries(stack.tables).map(([name, table]) => [name, logicalId(table)])),
  functions: Object.fromEntries(
    Object.entries(stack.functions).map(([name, f]) => [
      name,
      {
        function: logicalId(f.function),
        alias: logicalId(f.alias),
        role: logicalId(f.role),
        logGroup: logicalId(f.logGroup),
      },
    ]),
  ) as StackIndex['functions'],
  releaseHooks: Object.fromEntries(
    Object.entries(stack.releaseHooks).map(([name, hook]) => [
      name,
      { function: logicalId(hook.function), role: logicalId(hook.role) },
    ]),
  ) as StackIndex['releaseHooks'],
  cursorSecret: logicalId(stack.cursorSecret),
  probeKey: logicalId(stack.probeKey),
  restApi: logicalId(stack.api),
  apiStage: logicalId(stack.apiStage),
  accessLogGroup: logicalId(stack.accessLogGroup),
  executionLogGroup: logicalId(stack.executionLogGroup),
});

/** The same AWS Solutions rules, blind to acknowledgements: what each acknowledgement hides. */
const allNagFindings = (app: App): NagFinding[] =>
  [new AwsSolutionsChecks(), new ServerlessChecks()].flatMap((pack) => {
    // isAcknowledged is the pack's private filter; switching it off is the only way to see
    // the findings that CDK later matches against the acknowledgements.
    Object.defineProperty(pack, 'isAcknowledged', { value: () => false });
    return pack
      .validateScope(app)
      .violations.flatMap((v) => v.violatingResources.map((r) => ({ rule: v.ruleName, path: r.constructPath ?? '' })));
  });

const acknowledgementsIn = (app: App): Acknowledgement[] =>
  app.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
          // Stored as `AwsSolutions::AwsSolutions-XYZ`: the plugin's name, then the rule.
          rule: id.replace(/^[^:]+::/, ''),
          path: construct.node.path,
          reason,
        })),
      ),
  );

export const synthesizeInto = (outdir: string): Synthesis => {
  const started = performance.now();
  const cdkJson = JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  // Each stage pinned to TEST_ENV (infra/stages.ts: stageEnvironment), as a deployer pins it.
  const pinned = DEPLOYED_STAGES.flatMap((stage) => [
    [stageAccountEnvVar(stage), TEST_ENV.account],
    [stageRegionEnvVar(stage), TEST_ENV.region],
  ]);
  const saved = pinned.map(([name]) => [name!, process.env[name!]] as const);
  for (const [name, value] of pinned) process.env[name!] = value;
  try {
    const { app, stacks } = createPetStoreApp(
      new App({
        outdir,
        // cdk.json's feature flags, as the CLI passes them; findings go to the report for
        // the cdk-nag test to show, instead of aborting every file's synthesis.
        context: {
          ...cdkJson.context,
          [cxapi.FAIL_SYNTH_ON_VALIDATION_ERRORS_CONTEXT]: false,
          // Production refuses to synthesize without someone who hears its alarms (alarm-topic.ts).
          [alarmDestinationsContextKey('production')]: TEST_ALARM_DESTINATION,
          // A repository for PetStore-ci, whatever GITHUB_REPOSITORY the machine has (test/cdk/ci-stack.test.ts).
          [GITHUB_REPOSITORY_CONTEXT]: TEST_REPOSITORY,
        },
        // CDK's own template check costs seconds: cfn-lint checks the CLI's templates in CI.
        builtinCloudFormationValidation: false,
        stackTraces: false,
        treeMetadata: false,
        autoSynth: false,
      }),
    );
    app.synth();
    return {
      synthMs: Math.round(performance.now() - started),
      index: Object.fromEntries(stacks.map((stack) => [stack.settings.stage, indexOf(stack)])) as Synthesis['index'],
      nagFindings: allNagFindings(app),
      acknowledgements: acknowledgementsIn(app),
    };
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
};
