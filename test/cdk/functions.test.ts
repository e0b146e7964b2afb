// Lambda: one function per route plus the authorizer, configured and bundled as the
// issue asks, each allowed exactly its own calls on exactly its own resources.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { FunctionName } from '../../infra/constructs/functions.ts';
import { DEPLOYED_STAGES, FUNCTION_TIMEOUT_SECONDS, stageSettings } from '../../infra/stages.ts';
import { routes } from '../../shared/api/routes.ts';
import { tables } from '../../shared/dynamodb/tables.ts';
import { CURSOR_SECRET_ARN_ENV, CURSOR_SECRET_ENV } from '../../shared/lambda/cursor-secret.ts';
import { type SynthesizedApp, synthesized } from './support/synth.ts';
import { allStatements, grantsOf, render, resource, resourcesOfType } from './support/template.ts';

let app: SynthesizedApp;
beforeAll(async () => {
  app = await synthesized();
}, 300_000);

const FUNCTION_NAMES: FunctionName[] = [...routes.map((r) => r.operationId), 'authorizer'];

describe.each(DEPLOYED_STAGES)('stage %s', (stage) => {
  const settings = stageSettings[stage];
  const ids = () => app.index[stage];
  const fn = (name: FunctionName) => resource(app.template(stage), ids().functions[name].function).Properties!;
  const arn = (logicalId: string) => `\${${logicalId}.Arn}`;
  const cursorSecretId = () => ids().cursorSecret;

  test('has one function per route of the route table, plus the authorizer, and no other', () => {
    expect(Object.keys(ids().functions).sort()).toEqual([...FUNCTION_NAMES].sort());
    // …and one pre-traffic hook for each (test/cdk/release.test.ts).
    expect(resourcesOfType(app.template(stage), 'AWS::Lambda::Function')).toHaveLength(2 * FUNCTION_NAMES.length);
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
      expect(rest).toEqual(expected);
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

  test('the cursor secret is one random value of at least 32 characters, made by Secrets Manager', () => {
    const { GenerateSecretString, SecretString } = resource(app.template(stage), cursorSecretId()).Properties!;
    expect(SecretString).toBeUndefined();
    expect(GenerateSecretString.PasswordLength).toBeGreaterThanOrEqual(32);
    expect(GenerateSecretString.SecretStringTemplate).toBeUndefined();
  });

  test('each function may do exactly its own calls on exactly its own resources', () => {
    const { pets, keys, counters, idempotency } = ids().tables as Record<
      'pets' | 'keys' | 'counters' | 'idempotency',
      string
    >;
    const dynamodb: Record<FunctionName, string[]> = {
      listPets: [
        `Allow dynamodb:Query ${arn(pets)}/index/byStatusShard`,
        `Allow dynamodb:Scan ${arn(pets)}`,
        `Allow secretsmanager:GetSecretValue \${${cursorSecretId()}}`,
      ],
      createPet: [
        `Allow dynamodb:PutItem ${arn(pets)}`,
        `Allow dynamodb:UpdateItem ${arn(counters)}`,
        ...['PutItem', 'GetItem', 'UpdateItem', 'DeleteItem'].map(
          (call) => `Allow dynamodb:${call} ${arn(idempotency)}`,
        ),
      ],
      getPet: [`Allow dynamodb:GetItem ${arn(pets)}`],
      authorizer: [
        `Allow dynamodb:GetItem ${arn(keys)}`,
        // The last-use record: that one attribute, by the item's key, nothing read back.
        `Allow dynamodb:UpdateItem ${arn(keys)} if ${JSON.stringify({
          'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['keyHash', 'lastUsedAt'] },
          StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
        })}`,
      ],
    };
    for (const name of FUNCTION_NAMES) {
      const logGroup = arn(ids().functions[name].logGroup);
      const logs = [`Allow logs:CreateLogStream ${logGroup}`, `Allow logs:PutLogEvents ${logGroup}`];
      // Active tracing's two calls: X-Ray has no resource-level permissions.
      const xray = ['Allow xray:PutTelemetryRecords *', 'Allow xray:PutTraceSegments *'];
      expect(grantsOf(app.template(stage), ids().functions[name].role), name).toEqual(
        [...logs, ...xray, ...dynamodb[name]].sort(),
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

describe('bundles', () => {
  const assetDir = (name: FunctionName) => {
    const key = resource(app.template('production'), app.index.production.functions[name].function).Properties!.Code
      .S3Key as string;
    return join(app.dir, `asset.${key.replace(/\.zip$/, '')}`);
  };

  test.each(FUNCTION_NAMES)('%s is one minified ESM file with its source map, the AWS SDK inside', (name) => {
    const dir = assetDir(name);
    expect(readdirSync(dir).sort()).toEqual(['index.mjs', 'index.mjs.map']);
    const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
    // The createRequire banner, for CommonJS dependencies that require Node's modules.
    expect(
      code.startsWith("import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);"),
    ).toBe(true);
    expect(code.trimEnd().endsWith('//# sourceMappingURL=index.mjs.map')).toBe(true);
    // Minified: kilobytes to a line (template literals keep their own line breaks).
    expect(code.length / code.split('\n').length).toBeGreaterThan(1000);
    // Bundled, AWS SDK included: nothing is imported but Node's own modules (the smoke
    // test below runs the bundles away from node_modules, where nothing else resolves).
    const specifiers = [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)["']([^"']+)["']/g)].map((m) => m[1]!);
    expect(specifiers.filter((s) => !isBuiltin(s))).toEqual([]);
    const map = JSON.parse(readFileSync(join(dir, 'index.mjs.map'), 'utf8')) as {
      sources: string[];
      sourcesContent?: unknown;
    };
    expect(map.sourcesContent).toBeUndefined();
    expect(map.sources.some((s) => s.includes('@aws-sdk/client-dynamodb/'))).toBe(true);
  });

  test('both stages deploy the same bundles', () => {
    for (const name of FUNCTION_NAMES) {
      const key = (stage: 'staging' | 'production') =>
        resource(app.template(stage), app.index[stage].functions[name].function).Properties!.Code.S3Key;
      expect(key('staging')).toBe(key('production'));
    }
  });

  test('every bundle loads on its own in Node 24 and answers a request that needs no database', () => {
    // Copied out of the repository, so that only what is in the bundle can load, and run
    // in a child process, as Lambda would load it: no vitest module runner in between.
    const script = `
      const [authorizer, listPets, createPet, getPet] = await Promise.all(process.argv.slice(1).map((dir) => import(dir + '/index.mjs')));
      const context = { functionName: 'smoke', functionVersion: '1', invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:smoke',
        memoryLimitInMB: '1024', awsRequestId: 'aws-request', logGroupName: 'g', logStreamName: 's', getRemainingTimeInMillis: () => 10000 };
      const event = (overrides) => ({ resource: '/v1/pets', path: '/v1/pets', httpMethod: 'GET', headers: {}, multiValueHeaders: {},
        queryStringParameters: null, multiValueQueryStringParameters: null, pathParameters: null, stageVariables: null, body: null,
        isBase64Encoded: false, requestContext: { requestId: 'req-1', path: '/staging/v1/pets', stage: 'staging', authorizer: { principalId: 'key_smoke' } }, ...overrides });
      const refused = await authorizer.handler({ type: 'TOKEN', authorizationToken: 'Basic abc', methodArn: 'arn:aws:execute-api:eu-west-1:1:api/staging/GET/v1/pets' }, context)
        .then(() => 'allowed', (error) => error.message);
      const answers = [
        await listPets.handler(event({ multiValueQueryStringParameters: { limit: ['0'] } }), context),
        await createPet.handler(event({ httpMethod: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'x' }), context),
        await getPet.handler(event({ resource: '/v1/pets/{petId}', path: '/v1/pets/abc', pathParameters: { petId: 'abc' } }), context),
      ];
      console.log(JSON.stringify({ refused, answers: answers.map((a) => [a.statusCode, JSON.parse(a.body).code, JSON.parse(a.body).requestId]) }));
    `;
    const outside = mkdtempSync(join(tmpdir(), 'petstore-bundles-'));
    let output: string;
    try {
      const dirs = (['authorizer', 'listPets', 'createPet', 'getPet'] as const).map((name) => {
        cpSync(assetDir(name), join(outside, name), { recursive: true });
        return join(outside, name);
      });
      output = execFileSync(process.execPath, ['--input-type=module', '-e', script, ...dirs], {
        cwd: outside,
        encoding: 'utf8',
        env: {
          PATH: process.env.PATH,
          AWS_REGION: 'eu-west-1',
          POWERTOOLS_LOG_LEVEL: 'SILENT',
          POWERTOOLS_METRICS_DISABLED: 'true',
        },
      });
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
    expect(JSON.parse(output.trim().split('\n').at(-1)!)).toEqual({
      refused: 'Unauthorized',
      answers: [
        [400, 'BAD_REQUEST', 'req-1'],
        [415, 'UNSUPPORTED_MEDIA_TYPE', 'req-1'],
        [400, 'BAD_REQUEST', 'req-1'],
      ],
    });
  });
});
