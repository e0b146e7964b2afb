// The CDK app: its two stacks, where they deploy, cdk.json, and the stage settings.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { CI_STACK_NAME } from '../../infra/ci/github.ts';
import { REPOSITORY_ROOT } from '../../infra/repository-root.ts';
import { BOOTSTRAP_QUALIFIERS, stageEnvironment } from '../../infra/stage-deployment.ts';
import {
  DEPLOYED_AUTHORIZER_CACHE_TTL_SECONDS,
  DEPLOYED_STAGES,
  stackName,
  stageSettings,
} from '../../infra/stages.ts';
import { type SynthesizedApp, synthesized, TEST_ENV } from './support/synth.ts';

let app: SynthesizedApp;
beforeAll(async () => {
  app = await synthesized();
}, 300_000);

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

test('the app has exactly the stacks PetStore-staging, PetStore-production and PetStore-ci', () => {
  const stacks = Object.entries(app.manifest().artifacts)
    .filter(([, artifact]) => artifact.type === 'aws:cloudformation:stack')
    .map(([id]) => id)
    .sort();
  expect(stacks).toEqual(['PetStore-ci', 'PetStore-production', 'PetStore-staging']);
  // One per deployed stage, and the delivery pipeline's (infra/ci).
  expect([...DEPLOYED_STAGES.map(stackName), CI_STACK_NAME].sort()).toEqual(stacks);
});

test('each stage deploys to the account and region it was given (PETSTORE_AWS_*_<STAGE>), never the CLI default', () => {
  for (const stage of DEPLOYED_STAGES) {
    expect(app.manifest().artifacts[stackName(stage)]!.environment).toBe(
      `aws://${TEST_ENV.account}/${TEST_ENV.region}`,
    );
  }
  // PetStore-ci goes wherever its administrator's credentials point.
  expect(app.manifest().artifacts[CI_STACK_NAME]!.environment).toBe('aws://unknown-account/unknown-region');
});

test("each stage's stack uses its own bootstrap (qualifier): its own deploy and execution roles", () => {
  for (const stage of DEPLOYED_STAGES) {
    const template = app.template(stage) as unknown as { Parameters: { BootstrapVersion: { Default: string } } };
    expect(template.Parameters.BootstrapVersion.Default).toBe(`/cdk-bootstrap/${BOOTSTRAP_QUALIFIERS[stage]}/version`);
  }
  expect(new Set(Object.values(BOOTSTRAP_QUALIFIERS)).size).toBe(DEPLOYED_STAGES.length);
});

describe('stageEnvironment', () => {
  test('both variables or neither; never half a pin', () => {
    expect(stageEnvironment('staging', {})).toBeUndefined();
    expect(
      stageEnvironment('staging', {
        PETSTORE_AWS_ACCOUNT_STAGING: '111111111111',
        PETSTORE_AWS_REGION_STAGING: 'eu-west-1',
      }),
    ).toEqual({ account: '111111111111', region: 'eu-west-1' });
    expect(() => stageEnvironment('staging', { PETSTORE_AWS_REGION_STAGING: 'eu-west-1' })).toThrow(
      /PETSTORE_AWS_ACCOUNT_STAGING/,
    );
    expect(() => stageEnvironment('production', { PETSTORE_AWS_ACCOUNT_PRODUCTION: '111111111111' })).toThrow(
      /PETSTORE_AWS_REGION_PRODUCTION/,
    );
    // CDK_DEFAULT_*, which the CLI makes up without a region, is not a pin.
    expect(
      stageEnvironment('staging', { CDK_DEFAULT_ACCOUNT: '111111111111', CDK_DEFAULT_REGION: 'us-east-1' }),
    ).toBeUndefined();
  });
});

test('only production refuses to be deleted as a whole', () => {
  const protection = (stage: 'staging' | 'production') =>
    app.manifest().artifacts[stackName(stage)]!.properties?.terminationProtection ?? false;
  expect(protection('production')).toBe(true);
  expect(protection('staging')).toBe(false);
});

describe('cdk.json', () => {
  const cdkJson = readJson(join(REPOSITORY_ROOT, 'cdk.json'));

  test('runs infra/app.ts with Node (type stripping, no build step)', () => {
    expect(cdkJson.app).toBe('node infra/app.ts');
  });

  test("sets exactly the installed aws-cdk-lib's recommended feature flags, as cdk init writes them", () => {
    const recommended = readJson(join(REPOSITORY_ROOT, 'node_modules/aws-cdk-lib/recommended-feature-flags.json'));
    expect(cdkJson.context).toEqual(recommended);
    // cdk init sorts the keys.
    expect(Object.keys(cdkJson.context)).toEqual(Object.keys(recommended).sort());
  });
});

describe('stage settings', () => {
  test('the authorizer cache is 300 s on both deployed stages', () => {
    expect(DEPLOYED_AUTHORIZER_CACHE_TTL_SECONDS).toBe(300);
    for (const stage of DEPLOYED_STAGES) expect(stageSettings[stage].authorizerCacheTtlSeconds).toBe(300);
  });

  test('production keeps its data: retain, point-in-time recovery, deletion protection', () => {
    expect(stageSettings.production).toMatchObject({
      removalPolicy: 'retain',
      pointInTimeRecovery: true,
      deletionProtection: true,
    });
  });

  test('staging can be destroyed', () => {
    expect(stageSettings.staging).toMatchObject({
      removalPolicy: 'destroy',
      deletionProtection: false,
      terminationProtection: false,
    });
  });

  test('each entry is the settings of the stage it is filed under', () => {
    for (const stage of DEPLOYED_STAGES) expect(stageSettings[stage].stage).toBe(stage);
  });
});
