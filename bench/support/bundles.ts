// Builds of an entry with the stack's esbuild options (the handler bench's functions and floor),
// and the functions' bundles as `cdk synth` left them in cdk.out (the cold-start bench's).
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { BUNDLING_BANNER, LAMBDA_ALIASES } from '../../infra/constructs/bundled-function.ts';
import { REPOSITORY_ROOT } from '../../infra/repository-root.ts';
import { AUTHORIZER_ENTRY, type FunctionName, routes } from '../../shared/api/routes.ts';

/** Each function's entry file. */
export const ENTRIES = {
  ...Object.fromEntries(routes.map((r) => [r.operationId, r.entry])),
  authorizer: AUTHORIZER_ENTRY,
} as Record<FunctionName, string>;

/**
 * Builds `entry` into `outdir/index.mjs` as NodejsFunction does with the stack's bundling options
 * (ESM for node24, main fields module then main, the `require` banner, minified, external source
 * map without sources, the SDK bundled, the stack's LAMBDA_ALIASES).
 */
export const buildBundle = async (entry: string, outdir: string): Promise<string> => {
  mkdirSync(outdir, { recursive: true });
  const outfile = join(outdir, 'index.mjs');
  await build({
    absWorkingDir: REPOSITORY_ROOT,
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'esm',
    outfile,
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    mainFields: ['module', 'main'],
    banner: { js: BUNDLING_BANNER },
    alias: { ...LAMBDA_ALIASES },
    logLevel: 'warning',
  });
  return outfile;
};

interface TemplateResource {
  Type: string;
  Metadata?: Record<string, string>;
  Properties?: { Environment?: { Variables?: Record<string, unknown> } };
}

/** The functions of one stack's template whose asset is an ESM bundle of functions/, and whether the stack traces them. */
export const deployedBundles = (cdkOut: string, stack: string) => {
  const template = JSON.parse(readFileSync(join(cdkOut, `${stack}.template.json`), 'utf8')) as {
    Resources: Record<string, TemplateResource>;
  };
  return Object.values(template.Resources).flatMap((resource) => {
    const asset = resource.Metadata?.['aws:asset:path'];
    const name = /\/Functions\/([^/]+)\//.exec(resource.Metadata?.['aws:cdk:path'] ?? '')?.[1];
    if (resource.Type !== 'AWS::Lambda::Function' || !asset || !name || !(name in ENTRIES)) return [];
    const file = join(cdkOut, asset, 'index.mjs');
    const tracing = resource.Properties?.Environment?.Variables?.POWERTOOLS_TRACE_ENABLED === 'true';
    return existsSync(file) ? [{ name: name as FunctionName, file, tracing }] : [];
  });
};
