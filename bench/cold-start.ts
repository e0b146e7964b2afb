// `npm run bench:cold`: for each function bundled by `cdk synth` (cdk.out), the
// bundle's size and the time a fresh Node process takes to import it, beside an
// empty module, with and without --enable-source-maps, and the same for builds that leave the
// AWS SDK to the Lambda runtime's copy, keep its full credential chain, or go without the node:http
// alias. Synthesizes first, so that
// the bundles are the code's (COLD_SYNTH=0 measures cdk.out as it is). Then what a
// cold start costs each function, import and first invocation, beside the floor's
// (support/first-invocation.ts). COLD_RUNS (10, at least) fresh processes per figure.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stackName } from '../infra/stages.ts';
import {
  type BundleSize,
  bannerOf,
  buildBundle,
  bundleSize,
  deployedBundles,
  synthesizedStacks,
} from './support/bundles.ts';
import { measureFirstInvocations } from './support/first-invocation.ts';
import { describeMachine, machineInfo } from './support/machine.ts';
import { median, round, table, verdict } from './support/stats.ts';

const CDK_OUT = process.env.CDK_OUT ?? 'cdk.out';
const RUNS = Math.max(10, Number(process.env.COLD_RUNS ?? 10));
/** The target for every bundle with the SDK bundled, in kB (1 kB = 1000 bytes). */
const MAX_BUNDLE_KB = 400;
/** Import + first invocation as deployed (tracing on, first invocation sampled), against the floor's. */
const MAX_FIRST_INVOCATION_RATIO = 1.25;
const IMPORT_TIMER = fileURLToPath(new URL('./support/import-time.ts', import.meta.url));
const kB = (bytes: number) => round(bytes / 1000, 1);

const machine = machineInfo();
console.log(`machine: ${describeMachine(machine)}`);
const stack = stackName('staging');
if (process.env.COLD_SYNTH !== '0' || !synthesizedStacks(CDK_OUT).includes(stack)) {
  console.log(`synthesizing into ${CDK_OUT} (npx cdk synth)…`);
  // Staging alone (-e): production does not synthesize without its alarm destinations.
  const synth = spawnSync('npx', ['cdk', 'synth', '--quiet', '-e', stack, '--output', CDK_OUT], { stdio: 'inherit' });
  if (synth.status !== 0) {
    console.error('cdk synth failed: no bundles to measure');
    process.exit(1);
  }
}
const deployed = deployedBundles(CDK_OUT, stack);
if (deployed.length === 0) {
  console.error(`no function bundles in ${CDK_OUT}/${stack}.template.json`);
  process.exit(1);
}

// Builds of our own live under cdk.out, so that the runtime-SDK builds resolve
// @aws-sdk/* from the repository's node_modules, as Lambda resolves its own copy.
const work = fileURLToPath(new URL('../cdk.out/bench-cold-start', import.meta.url));
rmSync(work, { recursive: true, force: true });
mkdirSync(join(work, 'empty'), { recursive: true });
const emptyModule = join(work, 'empty', 'index.mjs');
writeFileSync(emptyModule, '');

interface Variant {
  function: string;
  variant:
    | 'SDK bundled (cdk.out)'
    | 'SDK bundled, full credential chain'
    | 'without the node:http alias'
    | 'SDK from the runtime'
    | 'empty module';
  file: string;
  environment: Record<string, string>;
  size: BundleSize;
}
const variants: Variant[] = [];
const rebuildChecks: Array<{ function: string; deployedBytes: number; rebuiltBytes: number }> = [];
for (const bundle of deployed) {
  const banner = bannerOf(bundle.file);
  const rebuilt = await buildBundle(bundle.entry, join(work, bundle.name, 'sdk-bundled'), banner, 'bundled');
  const fullChain = await buildBundle(
    bundle.entry,
    join(work, bundle.name, 'sdk-bundled-full-chain'),
    banner,
    'full credential chain',
  );
  const runtime = await buildBundle(bundle.entry, join(work, bundle.name, 'sdk-from-runtime'), banner, 'runtime');
  // What the node:http alias saves (infra/constructs/lambda-node-http.ts): the bundle without it.
  const withoutAlias = async (alias: string) =>
    buildBundle(
      bundle.entry,
      join(work, bundle.name, `without-${alias.replace(':', '-')}`),
      banner,
      'bundled',
      [],
      [alias],
    );
  const withoutHttp = await withoutAlias('node:http');
  rebuildChecks.push({
    function: bundle.name,
    deployedBytes: bundleSize(bundle.file).bytes,
    rebuiltBytes: bundleSize(rebuilt).bytes,
  });
  variants.push(
    {
      function: bundle.name,
      variant: 'SDK bundled (cdk.out)',
      file: bundle.file,
      environment: bundle.environment,
      size: bundleSize(bundle.file),
    },
    {
      function: bundle.name,
      variant: 'SDK bundled, full credential chain',
      file: fullChain,
      environment: bundle.environment,
      size: bundleSize(fullChain),
    },
    {
      function: bundle.name,
      variant: 'without the node:http alias',
      file: withoutHttp,
      environment: bundle.environment,
      size: bundleSize(withoutHttp),
    },
    {
      function: bundle.name,
      variant: 'SDK from the runtime',
      file: runtime,
      environment: bundle.environment,
      size: bundleSize(runtime),
    },
  );
}
variants.push({
  function: '-',
  variant: 'empty module',
  file: emptyModule,
  environment: deployed[0]!.environment,
  size: bundleSize(emptyModule),
});

// What Lambda's environment holds at init, give or take; nothing of this shell's (NODE_OPTIONS above all).
const lambdaEnvironment = (variant: Variant): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  AWS_REGION: 'us-east-1',
  AWS_DEFAULT_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'cold-start',
  AWS_SECRET_ACCESS_KEY: 'cold-start',
  AWS_SESSION_TOKEN: 'cold-start',
  AWS_LAMBDA_FUNCTION_NAME: `petstore-${variant.function}`,
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024',
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
  ...variant.environment,
});

const measurements = variants.flatMap((variant) =>
  [false, true].map((sourceMaps) => ({ variant, sourceMaps, importMs: [] as number[] })),
);
console.log(`measuring ${measurements.length} imports × ${RUNS} fresh processes…`);
for (let run = 0; run < RUNS; run++) {
  // A different order each run, so that a slow spell of the machine lands on all alike.
  for (let k = 0; k < measurements.length; k++) {
    const m = measurements[(k + run * 7) % measurements.length]!;
    const child = spawnSync(
      process.execPath,
      [...(m.sourceMaps ? ['--enable-source-maps'] : []), IMPORT_TIMER, m.variant.file],
      {
        env: lambdaEnvironment(m.variant),
        encoding: 'utf8',
      },
    );
    if (child.status !== 0) throw new Error(`importing ${m.variant.file} failed:\n${child.stderr}`);
    m.importMs.push(Number(child.stdout));
  }
}

const figure = (variant: Variant, sourceMaps: boolean) =>
  round(median(measurements.find((m) => m.variant === variant && m.sourceMaps === sourceMaps)!.importMs), 1);
const rows = variants.map((v) => ({
  function: v.function,
  variant: v.variant,
  file: relative(process.cwd(), v.file),
  kB: kB(v.size.bytes),
  gzipKB: kB(v.size.gzipBytes),
  mapKB: kB(v.size.mapBytes),
  importMs: figure(v, false),
  importMsWithSourceMaps: figure(v, true),
}));
console.log(`\nImport time: median of ${RUNS} fresh processes (node ${process.version}); sizes in kB of 1000 bytes\n`);
console.log(
  table([
    ['function', 'variant', 'kB', 'gzip kB', 'map kB', 'import ms', 'with source maps'],
    ...rows.map((r) => [r.function, r.variant, r.kB, r.gzipKB, r.mapKB, r.importMs, r.importMsWithSourceMaps]),
  ]),
);
const mismatched = rebuildChecks.filter((c) => Math.abs(c.rebuiltBytes - c.deployedBytes) > c.deployedBytes * 0.01);
console.log(
  mismatched.length
    ? `\nWARNING: the rebuilds differ from cdk.out's bundles (${mismatched.map((c) => `${c.function} ${c.rebuiltBytes} vs ${c.deployedBytes} bytes`).join(', ')}): the stack's bundling options changed; update bench/support/bundles.ts`
    : "\nCheck: rebuilt with the same options, each SDK-bundled bundle comes out the size of cdk.out's (±1%), so the runtime-SDK builds differ from the deployed ones in the SDK alone.",
);
const firstInvocations = await measureFirstInvocations(RUNS, console.log, deployed);
console.log(
  `\nImport + first invocation (median of ${RUNS} fresh processes each) of cdk.out's bundles, tracing as the template sets it (on: a sampled invocation, its documents sent to a local socket), against the floor: a bare handler making the same DynamoDB call, bundled the same way, untraced. Production's Node settings, and staging's (--enable-source-maps on both sides); the ratio's range over the runs beside it, and the ratio of CPU time (import + first invocation), which a busy machine disturbs less\n`,
);
const untraced = firstInvocations.filter((f) => f.tracing && f.xraySegments === 0);
if (untraced.length)
  throw new Error(`tracing on, yet nothing sent to X-Ray: ${untraced.map((f) => f.function).join(', ')}`);
console.log(
  table([
    [
      'function',
      'tracing',
      'import ms',
      'first call ms',
      'total ms',
      'floor import',
      'floor first',
      'floor total',
      'total ratio',
      'range',
      'CPU ratio',
      'staging: total ms',
      'floor',
      'ratio',
      'range',
      'CPU ratio',
    ],
    ...firstInvocations.map((f) => [
      f.function,
      f.tracing ? 'on' : 'off',
      f.importMs,
      f.firstMs,
      f.totalMs,
      f.floorImportMs,
      f.floorFirstMs,
      f.floorTotalMs,
      f.totalRatio,
      f.ratioRange.join('–'),
      f.cpuRatio,
      f.staging.totalMs,
      f.staging.floorTotalMs,
      f.staging.totalRatio,
      f.staging.ratioRange.join('–'),
      f.staging.cpuRatio,
    ]),
  ]),
);
const targets = [
  ...rows
    .filter((r) => r.variant === 'SDK bundled (cdk.out)')
    .map((r) => ({
      figure: `${r.function}: bundle size, SDK bundled`,
      target: `≤ ${MAX_BUNDLE_KB} kB`,
      measured: r.kB,
      met: r.kB <= MAX_BUNDLE_KB,
    })),
  ...firstInvocations.flatMap((f) =>
    (
      [
        ['production', f.totalRatio],
        ['staging', f.staging.totalRatio],
      ] as const
    ).map(([settings, measured]) => ({
      figure: `${f.function}: import + first invocation ÷ floor, ${settings}`,
      target: `≤ ${MAX_FIRST_INVOCATION_RATIO}`,
      measured,
      met: measured <= MAX_FIRST_INVOCATION_RATIO,
    })),
  ),
];
console.log(
  `\nTargets:\n${table([['figure', 'target', 'measured', ''], ...targets.map((t) => [t.figure, t.target, t.measured, verdict(t.met)])])}`,
);
writeFileSync(
  new URL('./results-cold-start.json', import.meta.url),
  `${JSON.stringify({ measuredAt: new Date().toISOString(), machine, runs: RUNS, stack, bundles: rows, rebuildChecks, firstInvocations, targets }, null, 2)}\n`,
);
console.log('\nwrote bench/results-cold-start.json');
