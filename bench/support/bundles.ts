// The functions' bundles as `cdk synth` left them in cdk.out, and builds of an entry with the
// stack's esbuild options (the handler bench's functions and floor).

import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { BUNDLING_BANNER, LAMBDA_ALIASES } from '../../infra/constructs/bundled-function.ts';
import { REPOSITORY_ROOT } from '../../infra/repository-root.ts';
import { AUTHORIZER_ENTRY, type FunctionName, routes } from '../../shared/api/routes.ts';

export interface DeployedBundle {
  /** The function's name in the stack: an operationId, or `authorizer`. */
  name: FunctionName;
  file: string;
  /** The environment the stack gives it; values resolved only at deploy time get a stand-in. */
  environment: Record<string, string>;
}

interface TemplateResource {
  Type: string;
  Metadata?: Record<string, string>;
  Properties?: { Environment?: { Variables?: Record<string, unknown> } };
}

/** Each function's entry file. */
export const ENTRIES = {
  ...Object.fromEntries(routes.map((r) => [r.operationId, r.entry])),
  authorizer: AUTHORIZER_ENTRY,
} as Record<FunctionName, string>;

/** The functions of one stack's template whose asset is an ESM bundle of functions/. */
export const deployedBundles = (cdkOut: string, stack: string): DeployedBundle[] => {
  const template = JSON.parse(readFileSync(join(cdkOut, `${stack}.template.json`), 'utf8')) as {
    Resources: Record<string, TemplateResource>;
  };
  return Object.values(template.Resources).flatMap((resource) => {
    const asset = resource.Metadata?.['aws:asset:path'];
    const name = /\/Functions\/([^/]+)\//.exec(resource.Metadata?.['aws:cdk:path'] ?? '')?.[1];
    if (resource.Type !== 'AWS::Lambda::Function' || !asset || !name || !(name in ENTRIES)) return [];
    const file = join(cdkOut, asset, 'index.mjs');
    if (!existsSync(file)) return [];
    const variables = resource.Properties?.Environment?.Variables ?? {};
    const environment = Object.fromEntries(
      Object.entries(variables)
        .filter(([variable]) => variable !== 'NODE_OPTIONS') // the measurement sets --enable-source-maps itself
        .map(([variable, value]) => [
          variable,
          typeof value === 'string' ? value : `deploy-time-${variable.toLowerCase()}`,
        ]),
    );
    return [{ name: name as FunctionName, file, environment }];
  });
};

export const bundleSize = (file: string) => ({
  bytes: statSync(file).size,
  gzipBytes: gzipSync(readFileSync(file)).length,
});

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

/** The stacks `cdk synth` wrote into `cdkOut`. */
export const synthesizedStacks = (cdkOut: string): string[] =>
  existsSync(cdkOut)
    ? readdirSync(cdkOut)
        .filter((f) => f.endsWith('.template.json'))
        .map((f) => f.replace(/\.template\.json$/, ''))
    : [];
