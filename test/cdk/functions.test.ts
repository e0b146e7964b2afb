// Lambda: one function per route plus the authorizer, configured as the issue asks, each
// allowed exactly its own calls on exactly its own resources (the bundles: bundles.test.ts).
import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, test } from 'vitest';
import { DEPLOYED_STAGES, FUNCTION_TIMEOUT_SECONDS, stageSettings } from '../../infra/stages.ts';
import { dynamodbCalls, FUNCTION_NAMES, type FunctionName, routes } from '../../shared/api/routes.ts';
import { tables } from '../../shared/dynamodb/tables.ts';
import {
  CONTAINER_CACHE_SECONDS,
  CURSOR_SECRET_ARN_ENV,
  CURSOR_SECRET_ENV,
  EXTENSION_CACHE_SECONDS,
} from '../../shared/lambda/cursor-secret.ts';
import { type SynthesizedApp, synthesized } from './support/synth.ts';
import { allStatements, grantsOf, render, resource, resourcesOfType } from './support/template.ts';

let app: SynthesizedApp;
const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' }).trim();
beforeAll(async () => {
  app = await synthesized();
}, 300_000);

/** The environment variables the Parameters and Secrets Lambda Extension reads. */
const EXTENSION_VARIABLE = /^(PARAMETERS_SECRETS_EXTENSION_|SECRETS_MANAGER_|SSM_PARAMETER_STORE_)/;

describe.each(DEPLOYED_STAGES)('stage %s', (stage) => {
  const settings = stageSettings[stage];
  const ids = () => app.index[stage];
  const fn = (name: FunctionName) => resource(app.template(stage), ids().functions[name].function).Properties!;
  const arn = (logicalId: string) => `\${${logicalId}.Arn}`;
  const cursorSecretId = () => ids().cursorSecret;

  test('has one function per route of the route table, plus the authorizer, and no other', () => {
    expect(Object.keys(ids().functions).sort()).toEqual([...FUNCTION_NAMES].sort());
    // …and one pre-traffic hook for each (test/cdk/release.test.ts), and the stack's read keys'
    // (test/cdk/read-key.test.ts). Not counted: the CDK's own custom-resource providers (a bucket
    // emptied before deletion: test/cdk/release.test.ts).
    const ours = resourcesOfType(app.template(stage), 'AWS::Lambda::Function').filter(
      ([id]) => !id.startsWith('Custom'),
    );
    expect(ours).toHaveLength(2 * FUNCTION_NAMES.length + 1);
  });

  describe.each(FUNCTION_NAMES)('%s', (name) => {
    test('runs nodejs24.x on arm64, with the 10 s timeout and the stage memory', () => {
      expect(fn(name)).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        Timeout: FUNCTION_TIMEOUT_SECONDS,
        MemorySize: settings.memoryMb,
      });
      expect(FUNCTION_TIMEOUT_SECONDS).toBe(10);
    });

    test("logs to its own log group, kept for the stage's retention", () => {
      const logGroupId = ids().functions[name].logGroup;
      expect(render(fn(name).LoggingConfig.LogGroup)).toBe(`\${${logGroupId}}`);
      const logGroup = resource(app.template(stage), logGroupId);
      expect(logGroup.Properties!.RetentionInDays).toBe(settings.logRetentionDays);
      expect(logGroup.DeletionPolicy).toBe(settings.removalPolicy === 'retain' ? 'Retain' : 'Delete');
    });

    test('has the Powertools settings, every table name, and the cursor secret only if it is listPets', () => {
      const variables = fn(name).Environment.Variables as Record<string, unknown>;
      const expected: Record<string, string> = {
        POWERTOOLS_SERVICE_NAME: 'petstore',
        POWERTOOLS_LOG_LEVEL: settings.logLevel,
        POWERTOOLS_METRICS_NAMESPACE: `PetStore/${stage}`,
        // The functions send their subsegments of what active tracing samples (the local stage leaves it false).
        POWERTOOLS_TRACE_ENABLED: String(settings.functionTracing),
        ...Object.fromEntries(tables.map((t) => [t.envVar, `\${${ids().tables[t.name]}}`])),
        // N of the status index: createPet writes under it, listPets reads every shard below it.
        PETS_STATUS_SHARDS: String(settings.statusIndexShards),
        // The commit every line names (the deploy marker among them), as git names the tree synthesized.
        PETSTORE_COMMIT: expect.stringMatching(new RegExp(`^${head}(-dirty)?$`)) as unknown as string,
        ...(settings.enableSourceMaps && { NODE_OPTIONS: '--enable-source-maps' }),
        // The usage plan's limits, which the authorizer names in every answer's RateLimit-Policy.
        ...(name === 'authorizer' && {
          KEY_RATE_LIMIT: String(settings.keyLimits.rateLimit),
          KEY_BURST_LIMIT: String(settings.keyLimits.burstLimit),
          KEY_QUOTA_PER_DAY: String(settings.keyLimits.quotaPerDay),
        }),
      };
      const rendered = Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, render(v)]));
      const { [CURSOR_SECRET_ARN_ENV]: cursorSecretArn, ...rest } = rendered;
      // The Parameters and Secrets extension's settings (its layer reads them), listPets' only.
      const extension = Object.keys(rest).filter((k) => EXTENSION_VARIABLE.test(k));
      for (const k of extension) delete rest[k];
      expect(rest).toEqual(expected);
      if (name === 'listPets') expect(extension.length).toBeGreaterThan(0);
      else expect(extension).toEqual([]);
      // Never the value: listPets reads it at run time from Secrets Manager, by the secret's ARN.
      expect(Object.keys(rendered)).not.toContain(CURSOR_SECRET_ENV);
      if (name === 'listPets') expect(cursorSecretArn).toBe(`\${${cursorSecretId()}}`);
      else expect(cursorSecretArn).toBeUndefined();
    });

    test('has a role of its own that only Lambda can assume, with no managed policy', () => {
      const role = resource(app.template(stage), ids().functions[name].role);
      expect(render(fn(name).Role)).toBe(arn(ids().functions[name].role));
      expect(role.Properties!.AssumeRolePolicyDocument.Statement).toEqual([
        { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } },
      ]);
      expect(role.Properties!.ManagedPolicyArns).toBeUndefined();
    });
  });

  // The extension: https://docs.aws.amazon.com/secretsmanager/latest/userguide/retrieving-secrets_lambda.html
  // (its layer, arm64 for an arm64 function; its port and cache TTL as environment variables).
  test('listPets alone has the Parameters and Secrets extension, arm64, caching the secret at most 5 minutes with its own cache', () => {
    for (const name of FUNCTION_NAMES) {
      const layers = JSON.stringify(fn(name).Layers ?? []);
      if (name !== 'listPets') {
        expect(layers, name).toBe('[]');
        continue;
      }
      // AWS's own layer, for the function's architecture, in the stack's region (TEST_ENV).
      expect(fn(name).Layers).toEqual([
        expect.stringMatching(
          /^arn:aws:lambda:eu-west-1:\d{12}:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:\d+$/,
        ),
      ]);
      const variables = fn(name).Environment.Variables as Record<string, string>;
      expect(variables).toMatchObject({
        PARAMETERS_SECRETS_EXTENSION_CACHE_ENABLED: 'true',
        PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: '2773',
        SECRETS_MANAGER_TTL: String(EXTENSION_CACHE_SECONDS),
      });
      expect(EXTENSION_CACHE_SECONDS + CONTAINER_CACHE_SECONDS).toBeLessThanOrEqual(300);
    }
  });

  test('the cursor secret is one random value of at least 32 characters, made by Secrets Manager', () => {
    const { GenerateSecretString, SecretString } = resource(app.template(stage), cursorSecretId()).Properties!;
    expect(SecretString).toBeUndefined();
    expect(GenerateSecretString.PasswordLength).toBeGreaterThanOrEqual(32);
    expect(GenerateSecretString.SecretStringTemplate).toBeUndefined();
  });

  test('each function may do exactly its own calls on exactly its own resources', () => {
    const tableIds = ids().tables as Record<string, string>;
    // Narrowed beyond the route table's list: the authorizer's last-use record is that one
    // attribute, by the item's key, nothing read back.
    const conditions: Partial<Record<string, object>> = {
      'authorizer UpdateItem': {
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['keyHash', 'lastUsedAt'] },
        StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
      },
      // The shard record's item alone (its partition key value: shared/dynamodb/shard-count.ts).
      'listPets GetItem': { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['statusIndexShards'] } },
    };
    /** The calls each function's entry lists (shared/api/routes.ts), each on exactly its table or index. */
    const listed = (name: FunctionName) =>
      dynamodbCalls(name).flatMap(({ table, index, actions }) =>
        actions.map((action) => {
          const condition = conditions[`${name} ${action}`];
          const on = `${arn(tableIds[table]!)}${index === undefined ? '' : `/index/${index}`}`;
          return `Allow dynamodb:${action} ${on}${condition ? ` if ${JSON.stringify(condition)}` : ''}`;
        }),
      );
    const dynamodb = (name: FunctionName) => [
      ...listed(name),
      ...(name === 'listPets' ? [`Allow secretsmanager:GetSecretValue \${${cursorSecretId()}}`] : []),
    ];
    // What the list says, for one of them: the listing queries the status index and scans the
    // table, and reads the most shards any writer used (shared/dynamodb/shard-count.ts).
    expect(listed('listPets')).toEqual([
      `Allow dynamodb:Query ${arn(tableIds.pets!)}/index/byStatusShard`,
      `Allow dynamodb:Scan ${arn(tableIds.pets!)}`,
      `Allow dynamodb:GetItem ${arn(tableIds.counters!)} if ${JSON.stringify(conditions['listPets GetItem'])}`,
    ]);
    for (const name of FUNCTION_NAMES) {
      const logGroup = arn(ids().functions[name].logGroup);
      const logs = [`Allow logs:CreateLogStream ${logGroup}`, `Allow logs:PutLogEvents ${logGroup}`];
      // Active tracing's two calls: X-Ray has no resource-level permissions.
      const xray = ['Allow xray:PutTelemetryRecords *', 'Allow xray:PutTraceSegments *'];
      expect(grantsOf(app.template(stage), ids().functions[name].role), name).toEqual(
        [...logs, ...xray, ...dynamodb(name)].sort(),
      );
    }
  });

  test('no policy anywhere in the stack has a wildcard action, nor a wildcard resource but for X-Ray and the smoke canary', () => {
    const statements = allStatements(app.template(stage));
    expect(statements.length).toBeGreaterThan(0);
    for (const { logicalId, statement } of statements) {
      for (const action of [statement.Action].flat()) expect(action, logicalId).not.toMatch(/\*/);
      const xray = [statement.Action]
        .flat()
        .every((action) => /^xray:Put(TraceSegments|TelemetryRecords)$/.test(action));
      // What every Synthetics canary needs, and nothing else accepts a resource for (infra/monitoring/canary.ts).
      const canary =
        logicalId.startsWith('WatchSmokeCanaryRole') &&
        [statement.Action]
          .flat()
          .every((action) => ['s3:ListAllMyBuckets', 'cloudwatch:PutMetricData'].includes(action));
      if (xray || canary) continue;
      for (const target of [statement.Resource].flat()) expect(render(target), logicalId).not.toBe('*');
    }
  });

  test("API Gateway may invoke each route function's live alias from its own method only, and the authorizer's as the authorizer", () => {
    const permissions = resourcesOfType(app.template(stage), 'AWS::Lambda::Permission').map(([, p]) => ({
      fn: render(p.Properties!.FunctionName),
      principal: p.Properties!.Principal,
      source: render(p.Properties!.SourceArn),
    }));
    const restApi = ids().restApi;
    const expected = [
      ...routes.map((r) => ({
        fn: `\${${ids().functions[r.operationId].alias}}`,
        principal: 'apigateway.amazonaws.com',
        source: expect.stringMatching(
          new RegExp(
            `:\\$\\{${restApi}\\}/\\$\\{${ids().apiStage}\\}/${r.method}/v1${r.path.replace(/\{\w+\}/g, '\\*')}$`,
          ),
        ),
      })),
      {
        fn: `\${${ids().functions.authorizer.alias}}`,
        principal: 'apigateway.amazonaws.com',
        source: expect.stringMatching(new RegExp(`:\\$\\{${restApi}\\}/authorizers/\\$\\{ApiBearerKey\\w+\\}$`)),
      },
    ];
    // No test-invoke-stage permission: the console's test call would skip the authorizer.
    expect(permissions).toHaveLength(expected.length);
    expect(permissions).toEqual(expect.arrayContaining(expected));
  });
});
