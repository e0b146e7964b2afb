// The cloud assembly as the pipeline makes it (.github/workflows/staging.yml, job `synth`): the
// CDK CLI as a child process, with no AWS credentials, no region and no profile, only what the
// job's environment holds. Without a region the CLI falls back to us-east-1 and hands it to the
// app as CDK_DEFAULT_REGION; an app that passes it on pins every stack there, and `cdk deploy
// --app cdk.out` deploys where the assembly says. AWS's "Environments for the AWS CDK"
// (https://docs.aws.amazon.com/cdk/v2/guide/environments.html): a stack without `env` is
// environment-agnostic, its templates use AWS::Region and AWS::AccountId, and the manifest says
// aws://unknown-account/unknown-region (aws/aws-cdk#2922), so the deploy's credentials name them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { REPOSITORY_ROOT } from '../../infra/repository-root.ts';
import { stageAccountEnvVar, stageRegionEnvVar } from '../../infra/stage-deployment.ts';
import { DEPLOYED_STAGES, type DeployedStage, stackName } from '../../infra/stages.ts';

const CI_ALARM_STAND_IN = 'ci-synth@example.com';
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** `cdk synth --quiet` as the synth job runs it: only PATH, a fresh HOME and `extra`. */
const cdk = (args: string[], extra: Record<string, string>, out: string) => {
  const home = mkdtempSync(join(tmpdir(), 'pipeline-home-'));
  dirs.push(out, home);
  return spawnSync(join(REPOSITORY_ROOT, 'node_modules/.bin/cdk'), [...args, '--output', out], {
    cwd: REPOSITORY_ROOT,
    encoding: 'utf8',
    // No AWS_*, no CDK_DEFAULT_*: a GitHub runner before configure-aws-credentials.
    env: { PATH: `${join(REPOSITORY_ROOT, 'node_modules/.bin')}:${process.env.PATH}`, HOME: home, ...extra },
    timeout: 240_000,
  });
};

const synthLikeThePipeline = (extra: Record<string, string>) => {
  const out = mkdtempSync(join(tmpdir(), 'pipeline-synth-'));
  const run = cdk(['synth', '--quiet'], extra, out);
  expect(run.status, run.stderr).toBe(0);
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  const template = (stage: DeployedStage) => {
    const parsed = JSON.parse(readFileSync(join(out, `${stackName(stage)}.template.json`), 'utf8'));
    // CDK's own analytics condition lists every region it reports from; it names none as ours.
    delete parsed.Conditions?.CDKMetadataAvailable;
    // A mapping is a lookup table (Fn::FindInMap with AWS::Region picks the deploy's row): CDK
    // lists the Parameters and Secrets extension's layer for every region in one. It names none as ours.
    delete parsed.Mappings;
    // That layer is published by AWS from its own account: its ARN names AWS's account, not ours.
    return JSON.stringify(parsed).replace(AWS_PUBLISHED_LAYER, ':aws-published:layer:');
  };
  return {
    environment: (stage: DeployedStage) => manifest.artifacts[stackName(stage)].environment,
    template,
    stderr: run.stderr,
  };
};

/**
 * What the CLI prints of the app's annotations holds each message, and no line that is only a
 * source location: the CLI prints an annotation's creation trace as one (`file:…/infra/app.ts:35:14`
 * above the CI stack's warning), which a reader cannot tell from stray output.
 */
const expectAnnotationsWithoutLocations = (stderr: string) => {
  expect(stderr).toMatch(/^WARNING PetStore-ci trusts no repository: /m);
  expect(
    stderr.split('\n').filter((line) => /^\S*\.[cm]?[jt]s:\d+(:\d+)?$/.test(line.trim())),
    stderr,
  ).toEqual([]);
};

// https://docs.aws.amazon.com/secretsmanager/latest/userguide/retrieving-secrets_lambda.html lists its ARNs.
const AWS_PUBLISHED_LAYER = /:\d{12}:layer:(?=AWS-Parameters-and-Secrets-Lambda-Extension)/g;
const REGION = /\b(?:us|eu|ap|sa|ca|me|af|il|mx)-(?:gov-)?[a-z]+-\d\b/g;
// Not inside a logical id or an asset hash: an account id stands between separators (`:`, `"`).
const ACCOUNT = /(?<![\w.])\d{12}(?![\w.])/g;

describe('synth as the pipeline runs it', () => {
  test('the synth job sets no region, account or credentials (what this test copies)', () => {
    const workflow = parse(readFileSync(join(REPOSITORY_ROOT, '.github/workflows/staging.yml'), 'utf8'));
    const job = workflow.jobs.synth;
    const names = Object.keys({ ...workflow.env, ...job.env });
    expect(names.filter((name) => /^(AWS_|CDK_DEFAULT_|PETSTORE_AWS_)/.test(name))).toEqual([]);
    expect(job.steps.some((step: { uses?: string }) => step.uses?.startsWith('aws-actions/'))).toBe(false);
  });

  test('names no region and no account: each deploy names them (environment-agnostic)', () => {
    const synth = synthLikeThePipeline({ PETSTORE_ALARM_DESTINATIONS_PRODUCTION: CI_ALARM_STAND_IN });
    expectAnnotationsWithoutLocations(synth.stderr);
    for (const stage of DEPLOYED_STAGES) {
      expect(synth.environment(stage)).toBe('aws://unknown-account/unknown-region');
      const template = synth.template(stage);
      expect(template.match(REGION) ?? [], stage).toEqual([]);
      expect(template.match(ACCOUNT) ?? [], stage).toEqual([]);
    }
  }, 300_000);

  test('a stage pinned to its account and region names those, and nothing else does', () => {
    const pins = { staging: ['111111111111', 'eu-central-1'], production: ['222222222222', 'eu-west-3'] } as const;
    const synth = synthLikeThePipeline({
      PETSTORE_ALARM_DESTINATIONS_PRODUCTION: CI_ALARM_STAND_IN,
      ...Object.fromEntries(
        DEPLOYED_STAGES.flatMap((stage) => [
          [stageAccountEnvVar(stage), pins[stage][0]],
          [stageRegionEnvVar(stage), pins[stage][1]],
        ]),
      ),
    });
    for (const stage of DEPLOYED_STAGES) {
      const [account, region] = pins[stage];
      expect(synth.environment(stage)).toBe(`aws://${account}/${region}`);
      const template = synth.template(stage);
      expect(new Set(template.match(REGION)), stage).toEqual(new Set([region]));
      expect(new Set(template.match(ACCOUNT)), stage).toEqual(new Set([account]));
    }
  }, 300_000);
});

/**
 * How many times a run printed production's missing-destination error, on either stream: once,
 * whoever prints it (the CLI, from the app's validation report), and never a second copy.
 */
const productionErrorCount = (run: { stdout: string; stderr: string }) =>
  `${run.stdout}\n${run.stderr}`.match(/PetStore-production's alarms reach NOBODY/g)?.length ?? 0;

test("`cdk synth PetStore-staging` without production's alarm destination says why it failed, once", () => {
  // The CLI fails on any stack's error but prints only the selected stacks' violations.
  const run = cdk(['synth', stackName('staging')], {}, mkdtempSync(join(tmpdir(), 'one-stack-')));
  expect(run.status).toBe(1);
  expect(run.stderr).toMatch(/PetStore-production.*alarms reach NOBODY/);
  expect(productionErrorCount(run), run.stderr).toBe(1);
  // …and how to synthesize staging without it (README: Deploying).
  expect(run.stderr).toMatch(/synthesize another stage alone: npx cdk synth -e PetStore-staging/);
}, 300_000);

test("a bare `cdk synth` without any destination: production's error once, each warning, no location lines", () => {
  const run = cdk(['synth'], {}, mkdtempSync(join(tmpdir(), 'bare-synth-')));
  expect(run.status).toBe(1);
  expect(run.stderr).toMatch(/^ERROR PetStore-production's alarms reach NOBODY/m);
  expect(productionErrorCount(run), run.stderr).toBe(1);
  expect(run.stderr).toMatch(/^WARNING PetStore-staging's alarms reach NOBODY/m);
  expectAnnotationsWithoutLocations(run.stderr);
}, 300_000);
