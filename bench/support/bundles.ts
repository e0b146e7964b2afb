// The functions' bundles as `cdk synth` left them in cdk.out, and rebuilds of each
// with the stack's esbuild options: one as deployed (a check that the options match:
// it must come out the size of cdk.out's bundle) and one with the AWS SDK left to
// the Lambda runtime's copy.

import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';
import { LAMBDA_ALIASES } from '../../infra/constructs/bundled-function.ts';
import { REPOSITORY_ROOT } from '../../infra/repository-root.ts';
import { AUTHORIZER_ENTRY, routes } from '../../shared/api/routes.ts';

export interface DeployedBundle {
  /** The function's name in the stack: an operationId, or `authorizer`. */
  name: string;
  /** Its entry file in the repository. */
  entry: string;
  file: string;
  /** The environment the stack gives it; values resolved only at deploy time get a stand-in. */
  environment: Record<string, string>;
}

interface TemplateResource {
  Type: string;
  Metadata?: Record<string, string>;
  Properties?: { Environment?: { Variables?: Record<string, unknown> } };
}

const entries: Record<string, string> = {
  ...Object.fromEntries(routes.map((r) => [r.operationId, r.entry])),
  authorizer: AUTHORIZER_ENTRY,
};

/** The functions of one stack's template whose asset is an ESM bundle of functions/. */
export const deployedBundles = (cdkOut: string, stack: string): DeployedBundle[] => {
  const template = JSON.parse(readFileSync(join(cdkOut, `${stack}.template.json`), 'utf8')) as {
    Resources: Record<string, TemplateResource>;
  };
  return Object.values(template.Resources).flatMap((resource) => {
    const asset = resource.Metadata?.['aws:asset:path'];
    const name = /\/Functions\/([^/]+)\//.exec(resource.Metadata?.['aws:cdk:path'] ?? '')?.[1];
    if (resource.Type !== 'AWS::Lambda::Function' || !asset || !name || !entries[name]) return [];
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
    return [{ name, entry: entries[name]!, file, environment }];
  });
};

export interface BundleSize {
  bytes: number;
  gzipBytes: number;
  mapBytes: number;
}

export const bundleSize = (file: string): BundleSize => ({
  bytes: statSync(file).size,
  gzipBytes: gzipSync(readFileSync(file)).length,
  mapBytes: existsSync(`${file}.map`) ? statSync(`${file}.map`).size : 0,
});

/**
 * Builds `entry` into `outdir/index.mjs` as NodejsFunction does with the stack's
 * bundling options (ESM for node24, main fields module then main, the `require`
 * banner, minified, external source map without sources, the SDK's credential
 * chain aliased to the environment provider, node:http to its stand-in: the stack's LAMBDA_ALIASES). With `sdk: 'runtime'`
 * the SDK stays out as CDK leaves it out for `bundleAwsSDK: false` with cdk.json's
 * `sdkV3ExcludeSmithyPackages` flag: `@aws-sdk/*` and `@smithy/*`.
 */
export const buildBundle = async (
  entry: string,
  outdir: string,
  banner: string,
  sdk: 'bundled' | 'full credential chain' | 'runtime',
  plugins: Plugin[] = [],
  /** Aliases of the stack's to leave out, to measure what each saves. */
  withoutAliases: readonly string[] = [],
): Promise<string> => {
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
    banner: { js: banner },
    external: sdk === 'runtime' ? ['@aws-sdk/*', '@smithy/*'] : [],
    // The stack's aliases; for comparison, one build with the credential chain left whole.
    alias: Object.fromEntries(
      Object.entries(LAMBDA_ALIASES).filter(
        ([from]) =>
          (sdk !== 'full credential chain' || from !== '@aws-sdk/credential-provider-node') &&
          !withoutAliases.includes(from),
      ),
    ),
    logLevel: 'warning',
    plugins,
  });
  return outfile;
};

/** The banner the stack put at the top of a bundle: its first line, when that is not the code itself. */
export const bannerOf = (file: string): string => {
  const [first = '', ...rest] = readFileSync(file, 'utf8').split('\n');
  return rest.length > 1 && first.length < 1000 ? first : '';
};

/** The stacks `cdk synth` wrote into `cdkOut`. */
export const synthesizedStacks = (cdkOut: string): string[] =>
  existsSync(cdkOut)
    ? readdirSync(cdkOut)
        .filter((f) => f.endsWith('.template.json'))
        .map((f) => f.replace(/\.template\.json$/, ''))
    : [];
