// A release as the templates deploy it (issue 19): every integration says how its body converts;
// each function's new version is checked by its pre-traffic hook before any traffic, watched by
// alarms on that version alone that can fire inside the canary, and kept afterwards for the
// manual rollback; a first deploy that fails can be retried.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as cxapi from 'aws-cdk-lib/cx-api';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createPetStoreApp } from '../../infra/app.ts';
import { permissionsBoundaryName } from '../../infra/ci/permissions-boundary.ts';
import { alarmDestinationsContextKey } from '../../infra/monitoring/alarm-destinations.ts';
import { METRIC_DELAY_MINUTES, minutesToAlarm } from '../../infra/monitoring/alarm-settings.ts';
import { FIRST_DEPLOY_CONTEXT } from '../../infra/stage-deployment.ts';
import { DEPLOYED_STAGES, stackName, stageSettings } from '../../infra/stages.ts';
import { FUNCTION_NAMES, type FunctionName } from '../../shared/api/routes.ts';
import { RELEASE_CHECK_ENV } from '../../shared/release-checks/settings.ts';
import { ciTemplate, managedPolicyOf } from './support/execution-simulation.ts';
import { type SynthesizedApp, synthesized, TEST_ALARM_DESTINATION, TEST_ENV } from './support/synth.ts';
import { grantsOf, render, resource, resourcesOfType } from './support/template.ts';

let app: SynthesizedApp;
beforeAll(async () => {
  app = await synthesized();
}, 300_000);

describe.each(DEPLOYED_STAGES)('stage %s', (stage) => {
  const settings = stageSettings[stage];
  const template = () => app.template(stage);
  const ids = () => app.index[stage];
  /** The logical id of the version the alias points at: the one this deploy publishes. */
  const versionOf = (name: FunctionName) =>
    render(resource(template(), ids().functions[name].alias).Properties!.FunctionVersion).match(
      /^\$\{(\w+)\.Version\}$/,
    )![1]!;

  test('no template-bearing integration under a binary media type lacks a conversion to text', () => {
    const [[, api]] = resourcesOfType(template(), 'AWS::ApiGateway::RestApi') as [[string, any]];
    expect(api.Properties.BinaryMediaTypes).toContain('*/*');
    const methods = resourcesOfType(template(), 'AWS::ApiGateway::Method');
    let templated = 0;
    for (const [id, method] of methods) {
      const integration = method.Properties!.Integration;
      if (integration.Type === 'AWS_PROXY') {
        // A proxy integration has no template: the body passes through, base64, as the functions expect.
        expect(integration.RequestTemplates, id).toBeUndefined();
        expect(integration.IntegrationResponses, id).toBeUndefined();
        continue;
      }
      if (integration.RequestTemplates) {
        templated++;
        expect(integration.ContentHandling, id).toBe('CONVERT_TO_TEXT');
      }
      for (const response of integration.IntegrationResponses ?? []) {
        if (response.ResponseTemplates) expect(response.ContentHandling, id).toBe('CONVERT_TO_TEXT');
      }
    }
    expect(templated, 'the catch-all 404 methods').toBeGreaterThan(0);
  });

  test('every published version is kept when the next one replaces it (the manual rollback points back at it)', () => {
    for (const name of FUNCTION_NAMES) {
      const version = resource(template(), versionOf(name));
      expect(version.DeletionPolicy, name).toBe('Retain');
      expect(version.UpdateReplacePolicy, name).toBe('Retain');
    }
  });

  describe.each(FUNCTION_NAMES)('%s', (name) => {
    const hook = () => ids().releaseHooks[name];
    const alias = () => resource(template(), ids().functions[name].alias);
    const group = () => render(alias().UpdatePolicy!.CodeDeployLambdaAliasUpdate.DeploymentGroupName).slice(2, -1);

    test('CodeDeploy runs its pre-traffic hook first, once the hook names and may invoke the new version', () => {
      const policy = alias().UpdatePolicy!.CodeDeployLambdaAliasUpdate;
      expect(render(policy.BeforeAllowTrafficHook)).toBe(`\${${hook().function}}`);
      expect(alias().DependsOn).toEqual(expect.arrayContaining([hook().function, hook().role]));
      const variables = resource(template(), hook().function).Properties!.Environment.Variables;
      expect(variables[RELEASE_CHECK_ENV.function]).toBe(name);
      expect(render(variables[RELEASE_CHECK_ENV.version])).toBe(`\${${versionOf(name)}}`);
      expect(variables[RELEASE_CHECK_ENV.stage]).toBe(stage);
      expect(render(variables[RELEASE_CHECK_ENV.probeKeySecret] ?? '')).toBe(
        name === 'authorizer' ? `\${${ids().probeKey}}` : '',
      );
    });

    test('the hook may invoke only that version, report only to its group, and read only the probe key', () => {
      const grants = grantsOf(template(), hook().role);
      expect(grants.filter((g) => g.includes('lambda:'))).toEqual([
        `Allow lambda:InvokeFunction \${${versionOf(name)}}`,
      ]);
      expect(grants.filter((g) => g.includes('codedeploy:'))).toHaveLength(1);
      expect(grants.find((g) => g.includes('codedeploy:'))).toMatch(
        new RegExp(`^Allow codedeploy:PutLifecycleEventHookExecutionStatus .*:deploymentgroup:.*\\$\\{${group()}\\}$`),
      );
      expect(grants.filter((g) => g.includes('secretsmanager:'))).toEqual(
        name === 'authorizer' ? [`Allow secretsmanager:GetSecretValue \${${ids().probeKey}}`] : [],
      );
      // Besides: its own log group, and active tracing's two X-Ray calls. No table, no key, no bucket.
      expect(grants.filter((g) => !/lambda:|codedeploy:|secretsmanager:|logs:|xray:/.test(g))).toEqual([]);
    });

    test('its group watches its release alarms: one-minute periods on the new version alone', () => {
      const alarms = resourcesOfType(template(), 'AWS::CloudWatch::Alarm').filter(
        ([, a]) => /-Release\w+-/.test(a.Properties!.AlarmName) && a.Properties!.AlarmName.endsWith(`-${name}`),
      );
      expect(alarms.length).toBe(name === 'authorizer' ? 1 : 2);
      for (const [id, alarm] of alarms) {
        const p = alarm.Properties!;
        expect(p.EvaluationPeriods, id).toBe(settings.releaseAlarms.datapoints);
        expect(p.DatapointsToAlarm, id).toBe(settings.releaseAlarms.datapoints);
        expect(p.TreatMissingData).toBe('notBreaching');
        // An expression's metrics, or the alarm's one metric.
        const stats = p.Metrics
          ? (p.Metrics as any[]).filter((m) => m.MetricStat).map((m) => m.MetricStat)
          : [{ Period: p.Period, Metric: { Dimensions: p.Dimensions } }];
        expect(stats.length, id).toBeGreaterThan(0);
        for (const stat of stats) expect(stat.Period, id).toBe(60);
        // The new version by its number, which CloudFormation fills in at every deploy.
        const versions = stats.flatMap((s) =>
          (s.Metric.Dimensions as { Name: string; Value: unknown }[])
            .filter((d) => d.Name === 'ExecutedVersion' || d.Name === 'executedVersion')
            .map((d) => render(d.Value)),
        );
        expect(new Set(versions), id).toEqual(new Set([`\${${versionOf(name)}.Version}`]));
        // …and updated before the alias starts the shift.
        expect(alias().DependsOn, id).toContain(id);
      }
    });
  });

  test(`the canary outlasts the time its alarms need to fire (${stage}: ${settings.deployment.minutes} min)`, () => {
    // The runbook's arithmetic: breaching minutes + metric delay + one evaluation, before the canary ends.
    expect(minutesToAlarm(settings.releaseAlarms)).toBe(settings.releaseAlarms.datapoints + METRIC_DELAY_MINUTES + 1);
    expect(minutesToAlarm(settings.releaseAlarms)).toBeLessThan(settings.deployment.minutes);
  });

  test('point-in-time recovery on every table', () => {
    const tables = resourcesOfType(template(), 'AWS::DynamoDB::GlobalTable');
    expect(tables.length).toBeGreaterThan(0);
    for (const [, table] of tables) {
      for (const replica of table.Properties!.Replicas)
        expect(replica.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    }
  });

  test('its stack names the secret of the probe key; no secret value is in the template', () => {
    expect(render(template().Outputs.ProbeKeySecretArn!.Value)).toBe(`\${${ids().probeKey}}`);
    for (const [, secret] of resourcesOfType(template(), 'AWS::SecretsManager::Secret'))
      expect(secret.Properties!.SecretString).toBeUndefined();
  });
});

describe('a first deploy', () => {
  const outdirs: string[] = [];
  afterAll(() => {
    for (const dir of outdirs) rmSync(dir, { recursive: true, force: true });
  });
  const production = (context: Record<string, string>) => {
    const outdir = mkdtempSync(join(tmpdir(), 'petstore-first-'));
    outdirs.push(outdir);
    const { stacks } = createPetStoreApp(
      new App({
        outdir,
        context: {
          ...context,
          [alarmDestinationsContextKey('production')]: TEST_ALARM_DESTINATION,
          [cxapi.BUNDLING_STACKS]: [],
          [cxapi.FAIL_SYNTH_ON_VALIDATION_ERRORS_CONTEXT]: false,
        },
        stackTraces: false,
      }),
    );
    const stack = stacks.find((s) => s.stackName === stackName('production'))!;
    return { stack, template: Template.fromStack(stack).toJSON() as { Resources: Record<string, any> } };
  };
  // Every retained resource but a function's versions, which go with their function. The canary's
  // bucket counts: Synthetics fills it on its first run, so it must be emptied and removed too.
  const kept = (template: { Resources: Record<string, any> }) =>
    Object.values(template.Resources).filter((r) => r.Type !== 'AWS::Lambda::Version' && r.DeletionPolicy === 'Retain')
      .length;

  test(`with -c ${FIRST_DEPLOY_CONTEXT}=true, production can be deleted and recreated if its create fails`, () => {
    const { stack, template } = production({ [FIRST_DEPLOY_CONTEXT]: 'true' });
    expect(stack.terminationProtection).toBe(false);
    expect(kept(template)).toBe(0);
    const tables = Object.values(template.Resources).filter((r) => r.Type === 'AWS::DynamoDB::GlobalTable');
    expect(tables.length).toBeGreaterThan(0);
    for (const r of tables) expect(r.Properties.Replicas[0].DeletionProtectionEnabled).toBe(false);
    // The canary's bucket is emptied before it is deleted (CloudFormation refuses a bucket with objects).
    const buckets = Object.entries(template.Resources).filter(([, r]) => r.Type === 'AWS::S3::Bucket');
    expect(buckets.length).toBeGreaterThan(0);
    for (const [id] of buckets)
      expect(
        Object.values(template.Resources).some(
          (r) => r.Type === 'Custom::S3AutoDeleteObjects' && JSON.stringify(r.Properties.BucketName).includes(id),
        ),
        id,
      ).toBe(true);
  }, 180_000);

  // The next deploy turns retention on and drops the bucket's auto-delete custom resource: in the
  // update, CloudFormation rewrites the bucket policy (its grant to the handler's role gone) and the
  // bucket's tags (`aws-cdk:auto-delete-objects` gone); in the cleanup after it, it deletes the
  // custom resource, whose handler first reads the bucket's tags (GetBucketTagging) to learn that it
  // must not empty it. With only the bucket policy's grant the read is refused and the cleanup
  // reports the delete failed (aws/aws-cdk#37257): the handler's role holds the read itself, inside
  // the stage's boundary. IAM decides as at that moment: the role's own policies, the boundary,
  // and the later template's bucket policy.
  test("the second deploy's removal of the bucket's auto-delete handler can still read the bucket's tags", async () => {
    const first = production({ [FIRST_DEPLOY_CONTEXT]: 'true' }).template;
    const later = production({}).template;
    const [handler] = Object.values(first.Resources).filter((r) => r.Type === 'Custom::S3AutoDeleteObjects');
    const bucketId = handler.Properties.BucketName.Ref as string;
    const functionId = handler.Properties.ServiceToken['Fn::GetAtt'][0] as string;
    const roleId = first.Resources[functionId].Properties.Role['Fn::GetAtt'][0] as string;
    expect(Object.values(later.Resources).some((r) => r.Type === 'Custom::S3AutoDeleteObjects')).toBe(false);
    const bucket = 'arn:aws:s3:::petstore-production-watchsmokecanaryartifacts-1a2b3c4d5e6f';
    const own = JSON.parse(
      JSON.stringify(first.Resources[roleId].Properties.Policies ?? []).replaceAll(
        JSON.stringify({ 'Fn::GetAtt': [bucketId, 'Arn'] }),
        JSON.stringify(bucket),
      ),
    ) as { PolicyName: string; PolicyDocument: unknown }[];
    const [laterPolicy] = Object.values(later.Resources).filter(
      (r) => r.Type === 'AWS::S3::BucketPolicy' && r.Properties.Bucket.Ref === bucketId,
    );
    // The Join of the objects' ARN first: it holds the bucket's GetAtt.
    const resourcePolicy = JSON.parse(
      JSON.stringify(laterPolicy.Properties.PolicyDocument)
        .replaceAll(
          JSON.stringify({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/*']] }),
          JSON.stringify(`${bucket}/*`),
        )
        .replaceAll(JSON.stringify({ 'Fn::GetAtt': [bucketId, 'Arn'] }), JSON.stringify(bucket)),
    );
    const response = await runSimulation(
      {
        request: {
          principal: `arn:aws:iam::${TEST_ENV.account}:role/PetStore-production-CustomS3AutoDeleteObjectsCusto-AbC`,
          action: 's3:GetBucketTagging',
          resource: { resource: bucket, accountId: TEST_ENV.account },
          contextVariables: { 'aws:SecureTransport': 'true' },
        },
        identityPolicies: own.map((p) => ({ name: p.PolicyName, policy: p.PolicyDocument })) as never,
        permissionBoundaryPolicies: [
          { name: 'boundary', policy: managedPolicyOf(ciTemplate(app), permissionsBoundaryName('production')) },
        ] as never,
        resourcePolicy,
        serviceControlPolicies: [],
        resourceControlPolicies: [],
      },
      {},
    );
    expect(response.resultType === 'error' ? JSON.stringify(response.errors) : response.overallResult).toBe('Allowed');
  }, 180_000);

  test('every later deploy of production turns every protection on', () => {
    const { stack, template } = production({});
    expect(stack.terminationProtection).toBe(true);
    expect(kept(template)).toBeGreaterThan(0);
    for (const r of Object.values(template.Resources).filter((r) => r.Type === 'AWS::DynamoDB::GlobalTable')) {
      expect(r.Properties.Replicas[0].DeletionProtectionEnabled).toBe(true);
      expect(r.DeletionPolicy).toBe('Retain');
    }
  }, 180_000);
});
