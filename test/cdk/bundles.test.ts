// The functions' bundles as `cdk synth` makes them: one minified ESM file each with its
// source map and the AWS SDK inside, the same in both stages, each loading on its own in
// Node 24 and answering a request that needs no database.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { FUNCTION_NAMES, type FunctionName, routes } from '../../shared/api/routes.ts';
import { sampleHttpRequest, sampleRequests } from '../../tools/harness/sample-requests.ts';
import { proxyEvent } from '../support/in-process.ts';
import { type SynthesizedApp, synthesized } from './support/synth.ts';
import { resource } from './support/template.ts';

let app: SynthesizedApp;
beforeAll(async () => {
  app = await synthesized();
}, 300_000);

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
    // listPets reads its secret through the extension: no Secrets Manager client in an API function's bundle.
    expect(map.sources.filter((s) => /client-secrets-manager|powertools\/parameters/.test(s))).toEqual([]);
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
    // Each operation's invalid sample (tools/harness/sample-requests.ts): refused before any database call.
    const operations = routes.map(({ operationId }) => {
      const { method, path, headers, body } = sampleHttpRequest(operationId, sampleRequests[operationId].invalid, {
        versioned: true,
      });
      return { name: operationId, event: proxyEvent({ method, path, headers, body, requestId: 'req-1' }) };
    });
    const script = `
      const [authorizerDir, casesJson] = process.argv.slice(1);
      const authorizer = await import(authorizerDir + '/index.mjs');
      const context = { functionName: 'smoke', functionVersion: '1', invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:smoke',
        memoryLimitInMB: '1024', awsRequestId: 'aws-request', logGroupName: 'g', logStreamName: 's', getRemainingTimeInMillis: () => 10000 };
      const refused = await authorizer.handler({ type: 'TOKEN', authorizationToken: 'Basic abc', methodArn: 'arn:aws:execute-api:eu-west-1:1:api/staging/GET/v1/pets' }, context)
        .then(() => 'allowed', (error) => error.message);
      const answers = [];
      for (const { dir, event } of JSON.parse(casesJson)) {
        const answer = await (await import(dir + '/index.mjs')).handler(event, context);
        answers.push([answer.statusCode, JSON.parse(answer.body).code, JSON.parse(answer.body).requestId]);
      }
      console.log(JSON.stringify({ refused, answers }));
    `;
    const outside = mkdtempSync(join(tmpdir(), 'petstore-bundles-'));
    let output: string;
    try {
      const copy = (name: FunctionName) => {
        cpSync(assetDir(name), join(outside, name), { recursive: true });
        return join(outside, name);
      };
      const cases = operations.map(({ name, event }) => ({ dir: copy(name), event }));
      output = execFileSync(
        process.execPath,
        ['--input-type=module', '-e', script, copy('authorizer'), JSON.stringify(cases)],
        {
          cwd: outside,
          encoding: 'utf8',
          env: {
            PATH: process.env.PATH,
            AWS_REGION: 'eu-west-1',
            POWERTOOLS_LOG_LEVEL: 'SILENT',
            POWERTOOLS_METRICS_DISABLED: 'true',
          },
        },
      );
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
    expect(JSON.parse(output.trim().split('\n').at(-1)!)).toEqual({
      refused: 'Unauthorized',
      answers: operations.map(() => [400, 'BAD_REQUEST', 'req-1']),
    });
  });
});
