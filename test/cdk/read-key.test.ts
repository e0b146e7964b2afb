// The keys the stack mints for itself (infra/constructs/read-key.ts): the release checks' probe
// key and the smoke canary's key, read keys in BOTH stages, and staging's smoke write key (never
// production's), each a custom resource served by one bundled function whose role may write a
// key's item and those secrets, and nothing else.
import { Stack } from 'aws-cdk-lib';
import { UsagePlan } from 'aws-cdk-lib/aws-apigateway';
import { AttributeType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { beforeAll, describe, expect, it } from 'vitest';
import { READ_KEY_RESOURCE_TYPE, ReadKeys } from '../../infra/constructs/read-key.ts';
import { DEPLOYED_STAGES, stageSettings } from '../../infra/stages.ts';
import { type SynthesizedApp, synthesized } from './support/synth.ts';
import { grantsOf, render, resourcesOfType } from './support/template.ts';

let app: SynthesizedApp;
beforeAll(async () => {
  app = await synthesized();
}, 300_000);

describe.each(DEPLOYED_STAGES)('%s', (stage) => {
  const keysOf = () => {
    const template = app.template(stage);
    const found = resourcesOfType(template, READ_KEY_RESOURCE_TYPE);
    const bySecret = Object.fromEntries(found.map(([id, r]) => [render(r.Properties!.SecretArn), { id, r }]));
    return { template, found, bySecret };
  };

  it("mints one read key into the probe key's secret and one into the canary's, of the stage's generation", () => {
    const { template, found, bySecret } = keysOf();
    const index = app.index[stage];
    const reads = found.filter(([, r]) => r.Properties!.Scope === 'read');
    expect(reads).toHaveLength(2);
    const canarySecret = resourcesOfType(template, 'AWS::SecretsManager::Secret').find(([id]) =>
      id.startsWith('WatchSmokeCanary'),
    )![0];
    expect(reads.map(([, r]) => render(r.Properties!.SecretArn)).sort()).toEqual(
      [`\${${index.probeKey}}`, `\${${canarySecret}}`].sort(),
    );
    expect(Object.keys(bySecret)).toHaveLength(found.length);
    for (const [, r] of found) {
      expect(render(r.Properties!.TableName)).toBe(`\${${index.tables.keys}}`);
      expect(r.Properties!.Generation).toBe(String(stageSettings[stage].readKeyGeneration));
    }
    // One function serves them all.
    expect(new Set(found.map(([, r]) => render(r.Properties!.ServiceToken))).size).toBe(1);
  });

  // The contract: "Against production it is always read-only". Staging's pipeline smoke run
  // checks writes too, with a write key its stack mints into a secret of its own.
  const writeKeys = () => keysOf().found.filter(([, r]) => r.Properties!.Scope !== 'read');
  if (stage === 'production')
    it('mints no write key: no key of another scope than read, no write-key secret', () => {
      expect(writeKeys()).toEqual([]);
      expect(JSON.stringify(app.template(stage))).not.toContain('smoke-write-key');
    });
  else
    it('mints one write key into its own secret, PetStore-staging/smoke-write-key, in the usage plan', () => {
      const { template } = keysOf();
      const written = writeKeys();
      expect(written).toHaveLength(1);
      const [keyId, key] = written[0]!;
      expect(key.Properties!.Scope).toBe('write');
      const [secretId, secret] = resourcesOfType(template, 'AWS::SecretsManager::Secret').find(
        ([id]) => render(key.Properties!.SecretArn) === `\${${id}}`,
      )!;
      expect(secret.Properties!.Name).toBe('PetStore-staging/smoke-write-key');
      expect(secretId).not.toMatch(/^WatchSmokeCanary/);
      const [apiKeyId] = resourcesOfType(template, 'AWS::ApiGateway::ApiKey').find(
        ([, r]) => render(r.Properties!.Value) === `\${${keyId}.UsageKey}`,
      )!;
      const [, planKey] = resourcesOfType(template, 'AWS::ApiGateway::UsagePlanKey').find(
        ([, r]) => render(r.Properties!.KeyId) === `\${${apiKeyId}}`,
      )!;
      expect(render(planKey.Properties!.UsagePlanId)).toMatch(/^\$\{KeyLimitsPlan/);
    });

  // What functions/read-key.ts calls, from AWS's API references: a key's item read by its hash
  // (GetItem, also the conditional put's lost-answer path) and written (PutItem, UpdateItem to
  // revoke); each secret's versions listed (ListSecretVersionIds), read (GetSecretValue), written
  // (PutSecretValue) and made current (UpdateSecretVersionStage).
  it("its function may read and write a key, and list, read, write and choose the versions of its keys' secrets, and nothing else", () => {
    const { template, found } = keysOf();
    const token = render(found[0]![1].Properties!.ServiceToken);
    const fnId = token.slice(2, -'.Arn}'.length);
    const roleId = render(template.Resources[fnId]!.Properties!.Role).slice(2, -'.Arn}'.length);
    const logGroup = render(template.Resources[fnId]!.Properties!.LoggingConfig.LogGroup).slice(2, -1);
    const keysArn = `\${${app.index[stage].tables.keys}.Arn}`;
    expect(grantsOf(template, roleId)).toEqual(
      [
        `Allow logs:CreateLogStream \${${logGroup}.Arn}`,
        `Allow logs:PutLogEvents \${${logGroup}.Arn}`,
        `Allow dynamodb:GetItem ${keysArn}`,
        `Allow dynamodb:PutItem ${keysArn}`,
        `Allow dynamodb:UpdateItem ${keysArn}`,
        ...found.flatMap(([, r]) =>
          ['ListSecretVersionIds', 'GetSecretValue', 'PutSecretValue', 'UpdateSecretVersionStage'].map(
            (action) => `Allow secretsmanager:${action} ${render(r.Properties!.SecretArn)}`,
          ),
        ),
        'Allow xray:PutTelemetryRecords *',
        'Allow xray:PutTraceSegments *',
      ].sort(),
    );
  });

  it("gives the canary's key its API key in the usage plan, and starts the canary only once both exist", () => {
    const { template, bySecret } = keysOf();
    const canaryKey = Object.entries(bySecret).find(([secret]) => secret.includes('WatchSmokeCanary'))![1].id;
    const [apiKeyId, apiKey] = resourcesOfType(template, 'AWS::ApiGateway::ApiKey').find(
      ([, r]) => render(r.Properties!.Value) === `\${${canaryKey}.UsageKey}`,
    )!;
    expect(apiKey.Properties!.Enabled).toBe(true);
    const [planKeyId, planKey] = resourcesOfType(template, 'AWS::ApiGateway::UsagePlanKey').find(
      ([, r]) => render(r.Properties!.KeyId) === `\${${apiKeyId}}`,
    )!;
    expect(render(planKey.Properties!.UsagePlanId)).toMatch(/^\$\{KeyLimitsPlan/);
    const [, canary] = resourcesOfType(template, 'AWS::Synthetics::Canary')[0]!;
    expect(canary.DependsOn).toEqual(expect.arrayContaining([canaryKey, planKeyId]));
  });
});

it('refuses a write key for production, whatever its settings say: its smoke runs are read-only', () => {
  const stack = new Stack();
  const props = {
    keysTable: new TableV2(stack, 'Keys', { partitionKey: { name: 'keyHash', type: AttributeType.STRING } }),
    probeKeySecret: new Secret(stack, 'Probe'),
    canaryKeySecret: new Secret(stack, 'Canary'),
    usagePlan: new UsagePlan(stack, 'Plan'),
  };
  expect(
    () => new ReadKeys(stack, 'ReadKeys', { ...props, settings: { ...stageSettings.production, smokeWriteKey: true } }),
  ).toThrow(/production gets no write key/);
});
