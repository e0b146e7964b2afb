// cdk-nag 3 (AWS Solutions rules), registered on the app as a validation plugin: no
// finding left unacknowledged, and each acknowledgement reviewed, reasoned and still needed.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import * as cxapi from 'aws-cdk-lib/cx-api';
import { beforeAll, expect, test } from 'vitest';
import { createPetStoreApp } from '../../infra/app.ts';
import { type SynthesizedApp, synthesized, type ValidationReport } from './support/synth.ts';

let app: SynthesizedApp;
beforeAll(async () => {
  app = await synthesized();
}, 300_000);

/** The rules a reviewer accepted for this API; a new acknowledgement must be added here, with its review. */
const REVIEWED_ACKNOWLEDGEMENTS = [
  'AwsSolutions-APIG2',
  'AwsSolutions-APIG3',
  'AwsSolutions-APIG4',
  'AwsSolutions-COG4',
  'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
  'AwsSolutions-IAM5[Resource::*]',
  // CodeDeploy may invoke each pre-traffic hook and its versions (LambdaDeploymentGroup's grant).
  'AwsSolutions-IAM5[Resource::<pre-traffic hook>.Arn>:*]',
  'AwsSolutions-IAM5[Resource::<WatchSmokeCanaryArtifacts2D65B007.Arn>/runs/*]',
  'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:/aws/lambda/cwsyn-petstore-*]',
  'AwsSolutions-S1',
  'AwsSolutions-SMG4',
  'Serverless-APIGWStructuredLogging',
  'Serverless-LambdaDLQ',
  'Serverless-LambdaStarPermissions',
];

/** A rule as reviewed: the hook function's logical id (which CDK hashes) read as what it is. */
const reviewed = (rule: string) =>
  rule
    .replace(/<Deployment\w+?ChecksFunction[0-9A-F]{8}\.Arn>/, '<pre-traffic hook>.Arn>')
    .replace(/stack\/PetStore-(?:staging|production)\/\*/, 'stack/<its own stage>/*')
    .replace(/role\/cdk-pet(?:stg|prd)-/, 'role/cdk-<its own qualifier>-')
    .replace(/secret:PetStore-(?:staging|production)\//, 'secret:<its own stage>/');

/** Acknowledged where the deploy subscribes alarm destinations: here production only (support/synthesize.ts). */
const PER_DEPLOY_ACKNOWLEDGEMENTS = ['Serverless-SNSRedrivePolicy'];

/**
 * Acknowledged in PetStore-ci only: its diff role reads the PetStore stacks' templates, and each
 * deploy role its own stage's stack status (stack ARNs end in a made id), in any region; assumes
 * its stage's bootstrap roles in any region (their names end in it) and reads its smoke key
 * (a secret's ARN ends in six random characters): staging's write key, production's canary key.
 */
const CI_STACK_ACKNOWLEDGEMENTS = [
  'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:cloudformation:*:<AWS::AccountId>:stack/PetStore-*/*]',
  'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:cloudformation:*:<AWS::AccountId>:stack/<its own stage>/*]',
  'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:iam::<AWS::AccountId>:role/cdk-<its own qualifier>-deploy-role-<AWS::AccountId>-*]',
  'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:iam::<AWS::AccountId>:role/cdk-<its own qualifier>-file-publishing-role-<AWS::AccountId>-*]',
  'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:*:<AWS::AccountId>:secret:<its own stage>/smoke-canary-key-??????]',
  'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:*:<AWS::AccountId>:secret:<its own stage>/smoke-write-key-??????]',
];

/**
 * On PetStore-ci's CloudFormation execution policies (infra/ci/execution-policy.ts) and the
 * stages' permissions boundaries (infra/ci/permissions-boundary.ts): one acknowledgement per
 * wildcard resource, each reviewed in those files' comments and simulated by
 * execution-policy-coverage.test.ts and permissions-boundary.test.ts.
 */
const onExecutionPolicy = (ack: { path: string }) => /^PetStore-ci\/(CfnExec|Boundary)-/.test(ack.path);

const covers = (ackPath: string, findingPath: string) =>
  findingPath === ackPath || findingPath.startsWith(`${ackPath}/`);

test('the app registers the AWS Solutions checks: a finding in any of its stacks is reported', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'petstore-nag-'));
  try {
    const { app: probe } = createPetStoreApp(
      new App({
        outdir,
        // No bundling and no CloudFormation check: only the plugin registration is under test.
        context: { [cxapi.BUNDLING_STACKS]: [], [cxapi.FAIL_SYNTH_ON_VALIDATION_ERRORS_CONTEXT]: false },
        builtinCloudFormationValidation: false,
        stackTraces: false,
        treeMetadata: false,
        autoSynth: false,
      }),
    );
    new Bucket(new Stack(probe, 'Probe'), 'Unlogged');
    probe.synth();
    const report = JSON.parse(readFileSync(join(outdir, cxapi.VALIDATION_REPORT_FILE), 'utf8')) as ValidationReport;
    const rules = report.pluginReports
      .filter((r) => r.pluginName === 'AwsSolutions')
      .flatMap((r) => r.violations.map((v) => v.ruleName));
    expect(rules).toContain('AwsSolutions-S1');
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
});

test('the synthesized app has no finding that is not acknowledged (and no other validation report)', () => {
  const reports = app.validationReport().pluginReports;
  expect(reports.filter((report) => report.pluginName !== 'Construct Annotations')).toEqual([]);
  // The one annotation: these tests synthesize without alarm destinations (alarm-delivery.test.ts).
  expect(reports.flatMap((report) => report.violations.map((v) => `${v.severity} ${v.ruleName}`))).toEqual([
    'warning Annotation::petstore:alarm-destinations',
  ]);
});

test('every finding is acknowledged on its resource or a construct above it', () => {
  expect(app.nagFindings.length).toBeGreaterThan(0);
  const unacknowledged = app.nagFindings.filter(
    (finding) => !app.acknowledgements.some((ack) => ack.rule === finding.rule && covers(ack.path, finding.path)),
  );
  expect(unacknowledged).toEqual([]);
});

test('every acknowledgement still hides a finding on both stacks', () => {
  for (const ack of app.acknowledgements) {
    expect(
      app.nagFindings.some((f) => f.rule === ack.rule && covers(ack.path, f.path)),
      `${ack.rule} at ${ack.path}`,
    ).toBe(true);
  }
  const stacksOf = (rule: string) =>
    new Set(
      app.acknowledgements
        .filter((a) => !onExecutionPolicy(a) && reviewed(a.rule) === rule)
        .map((a) => a.path.split('/')[0]),
    );
  for (const rule of REVIEWED_ACKNOWLEDGEMENTS)
    expect(stacksOf(rule)).toEqual(new Set(['PetStore-staging', 'PetStore-production']));
});

test('the acknowledged rules are exactly the reviewed ones, each with a reason of substance', () => {
  const [executionPolicy, others] = [
    app.acknowledgements.filter(onExecutionPolicy),
    app.acknowledgements.filter((a) => !onExecutionPolicy(a)),
  ];
  expect([...new Set(others.map((a) => reviewed(a.rule)))].sort()).toEqual(
    [...REVIEWED_ACKNOWLEDGEMENTS, ...PER_DEPLOY_ACKNOWLEDGEMENTS, ...CI_STACK_ACKNOWLEDGEMENTS].sort(),
  );
  expect(executionPolicy.length).toBeGreaterThan(0);
  for (const { rule } of executionPolicy) expect(rule).toMatch(/^AwsSolutions-IAM5\[Resource::/);
  for (const { rule, reason } of app.acknowledgements) {
    expect(reason.length, rule).toBeGreaterThanOrEqual(100);
  }
});
