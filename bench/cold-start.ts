// `npm run bench:cold`: for each function bundled by `cdk synth` (cdk.out), the bundle's size and
// what a cold start costs it, import and first invocation, beside the floor's
// (support/first-invocation.ts). Synthesizes first, so that the bundles are the code's
// (COLD_SYNTH=0 measures cdk.out as it is). COLD_RUNS (10, at least) fresh processes per figure.
// What the hand-made aliases save (the SDK from the runtime, the full credential chain, node:http's
// facade) was measured by this script's variants, since removed: docs/performance.md.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { stackName } from '../infra/stages.ts';
import { bundleSize, deployedBundles, synthesizedStacks } from './support/bundles.ts';
import { measureFirstInvocations } from './support/first-invocation.ts';
import { describeMachine, machineInfo } from './support/machine.ts';
import { round, table, verdict } from './support/stats.ts';

const CDK_OUT = process.env.CDK_OUT ?? 'cdk.out';
const RUNS = Math.max(10, Number(process.env.COLD_RUNS ?? 10));
/** The target for every bundle with the SDK bundled, in kB (1 kB = 1000 bytes). */
const MAX_BUNDLE_KB = 400;
/** Import + first invocation as deployed (tracing on, first invocation sampled), against the floor's. */
const MAX_FIRST_INVOCATION_RATIO = 1.25;
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

const bundles = deployed.map((b) => ({
  function: b.name,
  kB: kB(bundleSize(b.file).bytes),
  gzipKB: kB(bundleSize(b.file).gzipBytes),
}));
console.log(
  `\nBundles (cdk.out), kB of 1000 bytes\n${table([['function', 'kB', 'gzip kB'], ...bundles.map((b) => [b.function, b.kB, b.gzipKB])])}`,
);

const firstInvocations = await measureFirstInvocations(RUNS, console.log, deployed);
const untraced = firstInvocations.filter((f) => f.tracing && f.xraySegments === 0);
if (untraced.length)
  throw new Error(`tracing on, yet nothing sent to X-Ray: ${untraced.map((f) => f.function).join(', ')}`);
console.log(
  `\nImport + first invocation (median of ${RUNS} fresh processes each) of cdk.out's bundles, tracing as the template sets it (on: a sampled invocation, its documents sent to a local socket), against the floor: a bare handler making the same DynamoDB call, bundled the same way, untraced. Production's Node settings, and staging's (--enable-source-maps on both sides); the ratio's range over the runs beside it, and the ratio of CPU time, which a busy machine disturbs less\n`,
);
console.log(
  table([
    [
      'function',
      'tracing',
      'import ms',
      'first ms',
      'total ms',
      'floor total',
      'ratio',
      'range',
      'CPU ratio',
      'staging: ratio',
      'range',
      'CPU ratio',
    ],
    ...firstInvocations.map((f) => [
      f.function,
      f.tracing ? 'on' : 'off',
      f.importMs,
      f.firstMs,
      f.totalMs,
      f.floorTotalMs,
      f.totalRatio,
      f.ratioRange.join('–'),
      f.cpuRatio,
      f.staging.totalRatio,
      f.staging.ratioRange.join('–'),
      f.staging.cpuRatio,
    ]),
  ]),
);
const targets = [
  ...bundles.map((b) => ({
    figure: `${b.function}: bundle size, SDK bundled`,
    target: `≤ ${MAX_BUNDLE_KB} kB`,
    measured: b.kB,
    met: b.kB <= MAX_BUNDLE_KB,
  })),
  // Issue 30 gives the target in CPU time, which a busy machine disturbs less than wall time.
  ...firstInvocations.flatMap((f) =>
    (
      [
        ['production', f.cpuRatio],
        ['staging', f.staging.cpuRatio],
      ] as const
    ).map(([settings, measured]) => ({
      figure: `${f.function}: import + first invocation ÷ floor, CPU, ${settings}`,
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
  `${JSON.stringify({ measuredAt: new Date().toISOString(), machine, runs: RUNS, stack, bundles, firstInvocations, targets }, null, 2)}\n`,
);
console.log('\nwrote bench/results-cold-start.json');
