// `npm run bench:cold`: for each function bundled by `cdk synth` (cdk.out), the bundle's size and
// what a cold start costs it, import and first invocation, beside the floor's (bench/floor/
// handlers.ts): each a fresh process that imports its bundle and answers one event from the
// embedded DynamoDB, floor and function taking turns. Each function runs with what its
// template turns on: with tracing on, its first invocation sampled, its segments sent to the
// bench's stand-in for the X-Ray daemon; the floor traces nothing. Production's Node settings
// and staging's (--enable-source-maps, on both sides). Synthesizes first, so that the bundles are
// the code's (COLD_SYNTH=0 measures cdk.out as it is). COLD_RUNS (10, at least) fresh processes
// per figure.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { stackName } from '../infra/stages.ts';
import { FUNCTION_NAMES, type FunctionName } from '../shared/api/routes.ts';
import { handlersTable, measureHandlers } from './support/handler-bench.ts';
import { bundleModules, type Settings, type Variant } from './support/lambda-env.ts';
import { atMost, cells, printTargets, round, table, writeResults } from './support/stats.ts';

const CDK_OUT = process.env.CDK_OUT ?? 'cdk.out';
const RUNS = Math.max(10, Number(process.env.COLD_RUNS ?? 10));
/** The target for every bundle with the SDK bundled, in kB (1 kB = 1000 bytes). */
const MAX_BUNDLE_KB = 400;
/** Import + first invocation as deployed (tracing on, first invocation sampled), CPU, against the floor's. */
const MAX_CPU_RATIO = 1.25;
const SETTINGS: Settings[] = ['production', 'staging'];
const kB = (bytes: number) => round(bytes / 1000, 1);

const stack = stackName('staging');
const templateFile = join(CDK_OUT, `${stack}.template.json`);
if (process.env.COLD_SYNTH !== '0' || !existsSync(templateFile)) {
  console.log(`synthesizing into ${CDK_OUT} (npx cdk synth)…`);
  // Staging alone (-e): production does not synthesize without its alarm destinations.
  const synth = spawnSync('npx', ['cdk', 'synth', '--quiet', '-e', stack, '--output', CDK_OUT], { stdio: 'inherit' });
  if (synth.status !== 0) throw new Error('cdk synth failed: no bundles to measure');
}
interface Resource {
  Type: string;
  Metadata?: Record<string, string>;
  Properties: { Environment?: { Variables: Record<string, string> } };
}
const { Resources } = JSON.parse(readFileSync(templateFile, 'utf8')) as { Resources: Record<string, Resource> };
/** The API's functions in the template: each one's bundle (its asset) and whether the stack traces it. */
const deployed = Object.values(Resources).flatMap(({ Type, Metadata, Properties }) => {
  const name = /\/Functions\/([^/]+)\//.exec(Metadata?.['aws:cdk:path'] ?? '')?.[1] as FunctionName;
  if (Type !== 'AWS::Lambda::Function' || !FUNCTION_NAMES.includes(name)) return [];
  const bundle = join(CDK_OUT, Metadata!['aws:asset:path']!);
  return [{ name, bundle, tracing: Properties.Environment?.Variables.POWERTOOLS_TRACE_ENABLED === 'true' }];
});
const missing = FUNCTION_NAMES.filter((name) => !deployed.some((bundle) => bundle.name === name));
if (missing.length > 0) throw new Error(`no bundle in ${templateFile} for ${missing.join(', ')}`);
// Every file of a bundle (index.mjs and the chunks of its code splitting): what is deployed.
const bundles = deployed.map(({ name, bundle }) => {
  const sum = (size: (module: string) => number) => bundleModules(bundle).reduce((total, m) => total + size(m), 0);
  return {
    function: name,
    kB: kB(sum((m) => statSync(m).size)),
    gzipKB: kB(sum((m) => gzipSync(readFileSync(m)).length)),
  };
});
const bundleRows = bundles.map((b) => cells(b, 'function kB gzipKB'));
console.log(`\nBundles (cdk.out), kB of 1000 bytes\n${table([['function', 'kB', 'gzip kB'], ...bundleRows])}`);

// As the template sets each function's tracing (on: every first invocation sampled, its documents
// sent to lambda-env.ts's stand-in for the X-Ray daemon); the floor traces nothing.
const variants = deployed.flatMap(({ name, bundle, tracing }) =>
  SETTINGS.map((settings): Variant => ({ function: name, settings, tracing: tracing ? 'sampled' : 'off', bundle })),
);
const firstInvocations = await measureHandlers(variants, { coldRuns: RUNS }, console.log);
console.log(`\nImport + first invocation against the floor, medians of ${RUNS} fresh processes a side; ms`);
const columns = ['import ms', 'first ms', 'total ms', 'total floorMs', 'total ratio', 'cpu ratio'];
console.log(handlersTable(firstInvocations, columns));
const targets = printTargets([
  ...bundles.map((b) => atMost(`${b.function}: bundle size, SDK bundled (kB)`, b.kB, MAX_BUNDLE_KB)),
  // Issue 30 gives the target in CPU time, which a busy machine disturbs less than wall time.
  ...firstInvocations.map((f) =>
    atMost(
      `${f.function}, ${f.settings}: import + first invocation ÷ floor, CPU`,
      f.figures.cpu!.ratio!.median,
      MAX_CPU_RATIO,
    ),
  ),
]);
writeResults('results-cold-start.json', { runs: RUNS, stack, bundles, firstInvocations, targets });
