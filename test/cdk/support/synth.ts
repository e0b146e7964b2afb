// Synthesizes the CDK app (infra/app.ts, with bundling) ONCE for every CDK test file,
// and again only when a file it depends on changes: the cloud assembly is cached under
// node_modules/.cache, keyed by a hash of the sources. Concurrent test files wait for
// the one that holds the lock instead of bundling the same functions twice. This half
// is light (no aws-cdk-lib): a file that finds the cache loads nothing heavy.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPOSITORY_ROOT } from '../../../infra/repository-root.ts';
import { buildCommit } from '../../../infra/source-commit.ts';
import { type DeployedStage, stackName } from '../../../infra/stages.ts';
import type { FunctionName } from '../../../shared/api/routes.ts';

/** cdk.out's name for CDK's validation report (aws-cdk-lib/cx-api VALIDATION_REPORT_FILE). */
const VALIDATION_REPORT_FILE = 'validation-report.json';

/** What the synthesized stacks are deployed to in the tests (the CLI takes them from the credentials). */
export const TEST_ENV = { account: '123456789012', region: 'eu-west-1' } as const;
/** Production's alarm destination in the tests' synth: without one, production does not synthesize. */
export const TEST_ALARM_DESTINATION = 'oncall@example.com';

/** The GitHub repository PetStore-ci trusts in the tests. */
export const TEST_REPOSITORY = 'acme/petstore';

/** The logical ids of what the stack exposes, read from its public properties. */
export interface StackIndex {
  tables: Record<string, string>;
  functions: Record<FunctionName, { function: string; alias: string; role: string; logGroup: string }>;
  /** Each function's pre-traffic hook (infra/constructs/release-hook.ts). */
  releaseHooks: Record<FunctionName, { function: string; role: string }>;
  cursorSecret: string;
  probeKey: string;
  restApi: string;
  apiStage: string;
  accessLogGroup: string;
  executionLogGroup: string;
}

export interface NagFinding {
  rule: string;
  path: string;
}
export interface Acknowledgement {
  rule: string;
  path: string;
  reason: string;
}

export interface Synthesis {
  /** Milliseconds the synthesis took (0 when the cache answered). */
  synthMs: number;
  index: Record<DeployedStage, StackIndex>;
  /** Every cdk-nag finding, acknowledged or not, from the same rules with acknowledgements ignored. */
  nagFindings: NagFinding[];
  acknowledgements: Acknowledgement[];
}

// tools/smoke and the client's link parser: the smoke canary bundles them.
const INPUTS = [
  'infra',
  'functions',
  'shared',
  'tools/smoke',
  'client/index.ts',
  'test/cdk/support',
  'cdk.json',
  'package-lock.json',
  'tsconfig.json',
];
/** The local stage emulator: the CDK app never imports it. */
const NOT_INPUTS = ['infra/local'];
const CACHE_ROOT = join(REPOSITORY_ROOT, 'node_modules', '.cache', 'petstore-cdk');
const LOCK_STALE_MS = 5 * 60_000;

const filesUnder = (path: string): string[] => {
  if (!existsSync(path) || NOT_INPUTS.includes(relative(REPOSITORY_ROOT, path))) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => filesUnder(join(path, name)));
};

const fingerprint = (): string => {
  // The functions' environment names the commit (infra/source-commit.ts): a new commit is a new template.
  const hash = createHash('sha256').update(process.version).update(buildCommit());
  for (const file of INPUTS.flatMap((input) => filesUnder(join(REPOSITORY_ROOT, input)))) {
    hash.update(relative(REPOSITORY_ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
};

const SYNTHESIS_FILE = 'petstore-synthesis.json';

/** Waits for (or takes) the lock on `dir`, then synthesizes into it unless another process did. */
const ensureAssembly = async (dir: string): Promise<Synthesis> => {
  const done = join(dir, SYNTHESIS_FILE);
  const lock = `${dir}.lock`;
  mkdirSync(CACHE_ROOT, { recursive: true });
  for (;;) {
    if (existsSync(done)) return { ...(JSON.parse(readFileSync(done, 'utf8')) as Synthesis), synthMs: 0 };
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Another file synthesizes; a lock left by a killed run is taken over after a while.
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > LOCK_STALE_MS) rmSync(lock, { recursive: true, force: true });
      await sleep(250);
    }
  }
  try {
    if (existsSync(done)) return { ...(JSON.parse(readFileSync(done, 'utf8')) as Synthesis), synthMs: 0 };
    const building = `${dir}.building-${process.pid}`;
    rmSync(building, { recursive: true, force: true });
    const { synthesizeInto } = await import('./synthesize.ts');
    const synthesis = synthesizeInto(building);
    writeFileSync(join(building, SYNTHESIS_FILE), JSON.stringify(synthesis));
    rmSync(dir, { recursive: true, force: true });
    renameSync(building, dir);
    // Older fingerprints will not be read again.
    for (const name of readdirSync(CACHE_ROOT)) {
      if (/^[0-9a-f]{16}$/.test(name) && !dir.endsWith(name))
        rmSync(join(CACHE_ROOT, name), { recursive: true, force: true });
    }
    return synthesis;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
};

export interface SynthesizedApp extends Synthesis {
  /** The cloud assembly directory. */
  dir: string;
  template(stage: DeployedStage): CfnTemplate;
  manifest(): Manifest;
  /** CDK's validation report: the findings no acknowledgement covers. */
  validationReport(): ValidationReport;
}

export interface ValidationReport {
  pluginReports: { pluginName: string; conclusion?: string; violations: { ruleName: string; severity: string }[] }[];
}

export interface CfnTemplate {
  Description?: string;
  Resources: Record<string, Resource>;
  Outputs: Record<string, { Value: unknown; Description?: string }>;
}
export interface Resource {
  Type: string;
  Properties?: Record<string, any>;
  DependsOn?: string[];
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
  UpdatePolicy?: Record<string, any>;
}
interface Manifest {
  artifacts: Record<string, { type: string; environment?: string; properties?: Record<string, any> }>;
}

let cached: Promise<SynthesizedApp> | undefined;

/** The app, synthesized with bundling: at most once per fingerprint, whatever the number of files. */
export const synthesized = (): Promise<SynthesizedApp> =>
  (cached ??= (async () => {
    const dir = join(CACHE_ROOT, fingerprint());
    const synthesis = await ensureAssembly(dir);
    const read = (file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8'));
    return {
      ...synthesis,
      dir,
      template: (stage) => read(`${stackName(stage)}.template.json`) as CfnTemplate,
      manifest: () => read('manifest.json') as Manifest,
      validationReport: () => read(VALIDATION_REPORT_FILE) as ValidationReport,
    };
  })());
