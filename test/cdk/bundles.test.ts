// The functions' bundles as `cdk synth` makes them: minified ESM, index.mjs and the chunks of
// esbuild's code splitting, each file with its source map and the AWS SDK inside, the same in
// both stages, each loading on its own in Node 24 and answering a request that needs no database;
// createPet's idempotency code in a chunk of its own that its import does not load.
import { readdirSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { beforeAll, describe, expect, test } from 'vitest';
import { FUNCTION_NAMES, type FunctionName, routes } from '../../shared/api/routes.ts';
import { lambdaNodeFlags, startLambdaProcess } from '../../tools/harness/lambda-process.ts';
import { sampleEvent, sampleRequests } from '../../tools/harness/sample-requests.ts';
import { bundleSources, functionBundle, moduleSources } from './support/bundle.ts';
import { type SynthesizedApp, synthesized } from './support/synth.ts';
import { resource } from './support/template.ts';

/** A DynamoDB address nothing listens on (port 9, discard). */
const NOWHERE = 'http://127.0.0.1:9';

let app: SynthesizedApp;
beforeAll(async () => {
  app = await synthesized();
}, 300_000);

describe('bundles', () => {
  const assetDir = (name: FunctionName) => functionBundle(app, 'production', name);

  /** The relative modules `code` imports: statically (`from`, a bare `import`), or dynamically. */
  const chunkImports = (code: string, kind: 'static' | 'dynamic') =>
    [
      ...code.matchAll(
        kind === 'static' ? /(?:\bfrom\s*|\bimport\s*)["'](\.\/[^"']+)["']/g : /\bimport\s*\(\s*["'](\.\/[^"']+)["']/g,
      ),
    ].map((m) => m[1]!.slice(2));
  /** `file` and every chunk it loads at its own import, in the bundle `dir`. */
  const loadedAtImport = (dir: string, file = 'index.mjs', seen = new Set<string>()): Set<string> => {
    if (seen.has(file)) return seen;
    seen.add(file);
    for (const chunk of chunkImports(readFileSync(join(dir, file), 'utf8'), 'static')) loadedAtImport(dir, chunk, seen);
    return seen;
  };

  test.each(FUNCTION_NAMES)(
    '%s is minified ESM, index.mjs and its chunks, each with its source map, the AWS SDK inside',
    (name) => {
      const dir = assetDir(name);
      const files = readdirSync(dir).sort();
      const modules = files.filter((file) => file.endsWith('.mjs'));
      expect(modules).toContain('index.mjs');
      // Nothing but the modules and their maps.
      expect(files).toEqual(modules.flatMap((file) => [file, `${file}.map`]).sort());
      let [chars, lines] = [0, 0];
      for (const file of modules) {
        const code = readFileSync(join(dir, file), 'utf8');
        // The createRequire banner, for CommonJS dependencies that require Node's modules.
        expect(
          code.startsWith(
            "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
          ),
        ).toBe(true);
        expect(code.trimEnd().endsWith(`//# sourceMappingURL=${file}.map`)).toBe(true);
        [chars, lines] = [chars + code.length, lines + code.split('\n').length];
        // Bundled, AWS SDK included: nothing is imported but Node's own modules and the bundle's own
        // chunks (the smoke test below runs the bundles away from node_modules, where nothing else resolves).
        const specifiers = [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)["']([^"']+)["']/g)].map((m) => m[1]!);
        const chunks = specifiers.filter((s) => s.startsWith('./'));
        expect(specifiers.filter((s) => !isBuiltin(s) && !chunks.includes(s))).toEqual([]);
        expect(chunks.filter((chunk) => !modules.includes(chunk.slice(2)))).toEqual([]);
        const map = JSON.parse(readFileSync(join(dir, `${file}.map`), 'utf8')) as { sourcesContent?: unknown };
        expect(map.sourcesContent).toBeUndefined();
      }
      // Minified: kilobytes to a line (template literals keep their own line breaks).
      expect(chars / lines).toBeGreaterThan(1000);
      const sources = bundleSources(dir);
      expect(sources.some((s) => s.includes('@aws-sdk/client-dynamodb/'))).toBe(true);
      // listPets reads its secret through the extension: no Secrets Manager client in an API function's bundle.
      expect(sources.filter((s) => /client-secrets-manager|powertools\/parameters/.test(s))).toEqual([]);
    },
  );

  test("createPet's import leaves its idempotency code out: a chunk loaded on the first request with an Idempotency-Key", () => {
    const dir = assetDir('createPet');
    const idempotencyCode = (file: string) =>
      moduleSources(dir, file).filter((s) =>
        /@aws-lambda-powertools\/idempotency\/|shared\/lambda\/idempotent-create\.ts$/.test(s),
      );
    const atImport = loadedAtImport(dir);
    expect([...atImport].flatMap(idempotencyCode)).toEqual([]);
    // index.mjs itself asks for the chunk, dynamically (shared/lambda/idempotency.ts).
    const lazy = chunkImports(readFileSync(join(dir, 'index.mjs'), 'utf8'), 'dynamic');
    expect(lazy.flatMap(idempotencyCode)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/shared\/lambda\/idempotent-create\.ts$/),
        expect.stringMatching(/@aws-lambda-powertools\/idempotency\//),
      ]),
    );
  });

  test('both stages deploy the same bundles', () => {
    for (const name of FUNCTION_NAMES) {
      const key = (stage: 'staging' | 'production') =>
        resource(app.template(stage), app.index[stage].functions[name].function).Properties!.Code.S3Key;
      expect(key('staging')).toBe(key('production'));
    }
  });

  test('every bundle loads on its own in Node 24 and answers a request that needs no database', async () => {
    // Each in a process of its own, its bundle copied out of the repository so that only what is
    // in it can load, as Lambda runs it (tools/harness/lambda-process.ts). Each operation's invalid
    // sample (tools/harness/sample-requests.ts) is refused before any database call: the
    // DynamoDB address is one nothing listens on.
    const run = async (name: FunctionName, event: unknown) => {
      const host = await startLambdaProcess({ bundle: assetDir(name), functionName: name, dynamodbEndpoint: NOWHERE });
      // With Node's flags as Lambda's runtime gives them (test/unit/lambda-node-flags.test.ts).
      expect(host.ready.execArgv).toEqual(lambdaNodeFlags());
      try {
        return (await host.invoke(event)).answer;
      } finally {
        await host.stop();
      }
    };
    const refused = await run('authorizer', {
      type: 'TOKEN',
      authorizationToken: 'Basic abc',
      methodArn: 'arn:aws:execute-api:eu-west-1:123456789012:api/staging/GET/v1/pets',
    });
    expect(refused).toEqual({ error: 'Unauthorized' });
    for (const { operationId } of routes) {
      const event = sampleEvent(operationId, sampleRequests[operationId].invalid);
      const { statusCode, body } = (await run(operationId, event)) as APIGatewayProxyResult;
      expect([statusCode, JSON.parse(body).code, JSON.parse(body).requestId], operationId).toEqual([
        400,
        'BAD_REQUEST',
        event.requestContext.requestId,
      ]);
    }
  });
});
