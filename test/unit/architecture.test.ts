// The import rules of the house (docs/architecture.md), checked on the source and on what is
// deployed: functions/ reach only shared/; each room of shared/ reaches only the rooms
// below it; the CDK app never loads the local emulator or the commands; and a Lambda
// bundle carries neither CDK nor emulator code.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { FUNCTION_NAMES } from '../../shared/api/routes.ts';
import { assetDir, bundleSources } from '../cdk/support/bundle.ts';
import { type SynthesizedApp, synthesized } from '../cdk/support/synth.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const SOURCE_FOLDERS = ['functions', 'shared', 'infra', 'tools', 'client'];

const tsFilesUnder = (dir: string): string[] => {
  try {
    if (!statSync(dir).isDirectory()) return [];
  } catch {
    return [];
  }
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? tsFilesUnder(path) : path.endsWith('.ts') ? [path] : [];
  });
};

/** Every module specifier a file imports, statically or with import(), and each side-effect import. */
const SPECIFIER =
  /(?:^|[\s;])(?:import|export)\s(?:[^'";]*?\sfrom\s)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
const specifiersOf = (file: string): string[] =>
  [...readFileSync(file, 'utf8').matchAll(SPECIFIER)].map((m) => (m[1] ?? m[2]) as string);

/** Repository-relative path of every relative import, and the package name of every other. */
const importsOf = (file: string): { files: string[]; packages: string[] } => {
  const files: string[] = [];
  const packages: string[] = [];
  for (const specifier of specifiersOf(file)) {
    if (specifier.startsWith('.')) files.push(relative(ROOT, resolve(dirname(file), specifier)));
    else if (!specifier.startsWith('node:')) packages.push(specifier);
  }
  return { files, packages };
};

const sources = SOURCE_FOLDERS.flatMap((folder) => tsFilesUnder(join(ROOT, folder))).map((file) => ({
  path: relative(ROOT, file),
  ...importsOf(file),
}));
const under = (folder: string) => sources.filter((source) => source.path.startsWith(`${folder}/`));

/** `from → to` for every relative import of `files` that leaves the allowed folders. */
const crossings = (files: typeof sources, allowed: readonly string[]): string[] =>
  files.flatMap(({ path, files: targets }) =>
    targets.filter((target) => !allowed.some((folder) => target.startsWith(`${folder}/`))).map((t) => `${path} → ${t}`),
  );

describe('import rules', () => {
  test('the source tree was read', () => {
    expect(under('functions').length).toBeGreaterThanOrEqual(4);
    expect(under('shared').length).toBeGreaterThanOrEqual(15);
  });

  test('functions/ imports only shared/', () => {
    expect(crossings(under('functions'), ['shared'])).toEqual([]);
  });

  test('shared/ imports nothing outside itself', () => {
    expect(crossings(under('shared'), ['shared'])).toEqual([]);
  });

  // Each room of shared/ may reach only the rooms beneath it (its header comment says which).
  const rooms: Record<string, readonly string[]> = {
    'shared/api': ['shared/api'],
    'shared/domain': ['shared/api', 'shared/domain'],
    'shared/observability': ['shared/api', 'shared/observability'],
    'shared/dynamodb': ['shared/api', 'shared/domain', 'shared/dynamodb'],
    'shared/lambda': ['shared'],
    // The release checks build events as API Gateway does (shared/lambda/proxy-event.ts) and read the contract.
    'shared/release-checks': ['shared/api', 'shared/lambda', 'shared/release-checks'],
  };
  test.each(Object.entries(rooms))('%s imports only %j', (room, allowed) => {
    expect(under(room).length).toBeGreaterThan(0);
    expect(crossings(under(room), allowed)).toEqual([]);
  });

  test('shared/api is pure contract: of packages, only zod/mini', () => {
    expect(under('shared/api').flatMap((s) => s.packages.filter((p) => p !== 'zod/mini'))).toEqual([]);
  });

  test('nothing infra/app.ts loads imports the local emulator or the commands', () => {
    const byPath = new Map(sources.map((source) => [source.path, source]));
    const loaded = new Set<string>();
    const visit = (path: string) => {
      if (loaded.has(path)) return;
      loaded.add(path);
      for (const target of byPath.get(path)?.files ?? []) visit(target);
    };
    visit('infra/app.ts');
    expect(loaded.size).toBeGreaterThan(10);
    expect([...loaded].filter((path) => /^(infra\/local|tools|test|bench)\//.test(path))).toEqual([]);
  });

  // What both use lives in tools/harness/, which imports neither (its README).
  const filesUnder = (folder: string) =>
    tsFilesUnder(join(ROOT, folder)).map((file) => ({ path: relative(ROOT, file), ...importsOf(file) }));
  const reaching = (folder: string, forbidden: readonly string[]) =>
    filesUnder(folder).flatMap(({ path, files }) =>
      files.filter((target) => forbidden.some((f) => target.startsWith(`${f}/`))).map((t) => `${path} → ${t}`),
    );
  test('bench/ does not import test/, test/ does not import bench/, tools/harness/ imports neither', () => {
    expect(filesUnder('bench').length).toBeGreaterThan(5);
    expect(filesUnder('test').length).toBeGreaterThan(20);
    expect(reaching('bench', ['test'])).toEqual([]);
    expect(reaching('test', ['bench'])).toEqual([]);
    expect(reaching('tools/harness', ['test', 'bench'])).toEqual([]);
  });
});

describe('Lambda bundles', () => {
  let app: SynthesizedApp;
  beforeAll(async () => {
    app = await synthesized();
  }, 300_000);

  test('carry no CDK, no emulator, no command and no test code', () => {
    const { functions, releaseHooks } = app.index.staging;
    expect(Object.keys(functions).sort()).toEqual([...FUNCTION_NAMES].sort());
    // The route functions and the authorizer, then each one's pre-traffic hook (one entry file for all four).
    const bundles = [
      ...Object.entries(functions).map(([name, { function: id }]) => [name, id, 1] as const),
      ...Object.entries(releaseHooks).map(([name, { function: id }]) => [`${name} hook`, id, 1] as const),
    ];
    for (const [name, logicalId, entries] of bundles) {
      const dir = assetDir(app, 'staging', logicalId);
      // Source paths are relative to the bundle's folder: made repository-relative here.
      const bundled = bundleSources(dir).map((source) => relative(ROOT, resolve(dir, source)));
      expect(bundled.filter((s) => s.startsWith('functions/')).length, name).toBe(entries);
      const forbidden = bundled.filter((s) =>
        /^(node_modules\/(aws-cdk-lib|constructs|cdk-nag|dynalite|esbuild)\/|infra\/local\/|tools\/|test\/|bench\/)/.test(
          s,
        ),
      );
      expect(forbidden, name).toEqual([]);
    }
  });
});
