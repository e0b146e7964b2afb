// `npm run bench:cold`: for each function bundled by `cdk synth` (cdk.out), the bundle's size and
// what a cold start costs it, import and first invocation, beside the floor's (bench/floor/
// handlers.ts): each a fresh process that imports its bundle and answers one event from the
// embedded DynamoDB, sides in a different order each run. Each function runs with what its
// template turns on: with tracing on, its first invocation sampled, its segments sent to the
// bench's stand-in for the X-Ray daemon; the floor traces nothing. Production's Node settings
// and staging's (--enable-source-maps, on both sides). Synthesizes first, so that the bundles are
// the code's (COLD_SYNTH=0 measures cdk.out as it is). COLD_RUNS (10, at least) fresh processes
// per figure. What the hand-made aliases save (the SDK from the runtime, the full credential
// chain, node:http's facade) was measured by this script's variants, since removed:
// docs/performance.md.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { stackName } from '../infra/stages.ts';
import { FUNCTION_NAMES } from '../shared/api/routes.ts';
import { deployedBundles } from './support/bundles.ts';
import { prepareLambdaEnv, type Settings } from './support/lambda-env.ts';
import { atMost, cells, machine, median, printTargets, round, table, writeResults } from './support/stats.ts';

const CDK_OUT = process.env.CDK_OUT ?? 'cdk.out';
const RUNS = Math.max(10, Number(process.env.COLD_RUNS ?? 10));
/** The target for every bundle with the SDK bundled, in kB (1 kB = 1000 bytes). */
const MAX_BUNDLE_KB = 400;
/** Import + first invocation as deployed (tracing on, first invocation sampled), CPU, against the floor's. */
const MAX_FIRST_INVOCATION_RATIO = 1.25;
const SETTINGS: Settings[] = ['production', 'staging'];
const kB = (bytes: number) => round(bytes / 1000, 1);

console.log(`machine: ${machine.description}`);
const stack = stackName('staging');
if (process.env.COLD_SYNTH !== '0' || !existsSync(join(CDK_OUT, `${stack}.template.json`))) {
  console.log(`synthesizing into ${CDK_OUT} (npx cdk synth)…`);
  // Staging alone (-e): production does not synthesize without its alarm destinations.
  const synth = spawnSync('npx', ['cdk', 'synth', '--quiet', '-e', stack, '--output', CDK_OUT], { stdio: 'inherit' });
  if (synth.status !== 0) throw new Error('cdk synth failed: no bundles to measure');
}
const deployed = deployedBundles(CDK_OUT, stack);
const missing = FUNCTION_NAMES.filter((name) => !deployed.some((bundle) => bundle.name === name));
if (missing.length > 0) throw new Error(`no bundle in ${CDK_OUT}/${stack}.template.json for ${missing.join(', ')}`);
const bundles = deployed.map(({ name, file }) => ({
  function: name,
  kB: kB(statSync(file).size),
  gzipKB: kB(gzipSync(readFileSync(file)).length),
}));
const bundleRows = bundles.map((b) => cells(b, 'function kB gzipKB'));
console.log(`\nBundles (cdk.out), kB of 1000 bytes\n${table([['function', 'kB', 'gzip kB'], ...bundleRows])}`);

type Sample = { importMs: number; firstMs: number; cpuMs: number };
/** By `function settings side`: each run's sample. */
const samples = new Map<string, Sample[]>();
const segments = new Map(FUNCTION_NAMES.map((name) => [name, 0]));
const sides = SETTINGS.flatMap((settings) => [`${settings} floor`, `${settings} function`]);
const env = await prepareLambdaEnv();
try {
  console.log(
    `measuring import + first invocation: each function and its floor × ${sides.length / 2} settings × ${RUNS}…`,
  );
  for (let run = 0; run < RUNS; run++) {
    for (const { name, file, tracing } of deployed) {
      // A different order each run, so that a slow spell of the machine lands on all alike.
      for (const side of sides.map((_, i) => sides[(i + run) % sides.length]!)) {
        const [settings, kind] = side.split(' ') as [Settings, 'floor' | 'function'];
        const traced = tracing && kind === 'function';
        const sentBefore = env.segmentsSent();
        const host = await env.host(name, kind, traced ? 'sampled' : 'off', settings, file);
        const { wallMs, cpuMs } = await host.run(1);
        await host.stop();
        const sample = { importMs: host.ready.importMs, firstMs: wallMs[0]!, cpuMs: host.ready.importCpuMs + cpuMs };
        samples.set(`${name} ${side}`, [...(samples.get(`${name} ${side}`) ?? []), sample]);
        if (traced) segments.set(name, segments.get(name)! + env.segmentsSent() - sentBefore);
      }
    }
  }
} finally {
  await env.close();
}

const m = (values: number[]) => round(median(values), 1);
const total = (s: Sample) => s.importMs + s.firstMs;
const firstInvocations = deployed.flatMap(({ name, tracing }) => {
  if (tracing && segments.get(name) === 0) throw new Error(`${name}: tracing on, yet nothing sent to X-Ray`);
  return SETTINGS.map((settings) => {
    const [own, floor] = [samples.get(`${name} ${settings} function`)!, samples.get(`${name} ${settings} floor`)!];
    const ratios = own.map((s, i) => total(s) / total(floor[i]!));
    return {
      ...{ function: name, settings, tracing: tracing ? 'on' : 'off', xraySegments: segments.get(name)! },
      ...{ importMs: m(own.map((s) => s.importMs)), firstMs: m(own.map((s) => s.firstMs)), totalMs: m(own.map(total)) },
      floorTotalMs: m(floor.map(total)),
      ratio: round(median(ratios), 2),
      range: `${round(Math.min(...ratios), 2)}–${round(Math.max(...ratios), 2)}`,
      cpuMs: m(own.map((s) => s.cpuMs)),
      cpuRatio: round(median(own.map((s, i) => s.cpuMs / floor[i]!.cpuMs)), 2),
    };
  });
});
console.log(
  `\nImport + first invocation (median of ${RUNS} fresh processes each) of cdk.out's bundles, tracing as the template sets it (on: a sampled invocation, its documents sent to a local socket), against the floor: a bare handler making the same DynamoDB call, bundled the same way, untraced; under production's Node settings and staging's (--enable-source-maps on both sides). The ratio's range over the runs beside it, and the ratio of CPU time, which a busy machine disturbs less\n`,
);
const columns = 'function settings tracing importMs firstMs totalMs floorTotalMs ratio range cpuRatio';
const header = 'function|settings|tracing|import ms|first ms|total ms|floor total|ratio|range|CPU ratio'.split('|');
console.log(table([header, ...firstInvocations.map((f) => cells(f, columns))]));
const targets = printTargets([
  ...bundles.map((b) => atMost(`${b.function}: bundle size, SDK bundled (kB)`, b.kB, MAX_BUNDLE_KB)),
  // Issue 30 gives the target in CPU time, which a busy machine disturbs less than wall time.
  ...firstInvocations.map((f) =>
    atMost(
      `${f.function}: import + first invocation ÷ floor, CPU, ${f.settings}`,
      f.cpuRatio,
      MAX_FIRST_INVOCATION_RATIO,
    ),
  ),
]);
writeResults('results-cold-start.json', { runs: RUNS, stack, bundles, firstInvocations, targets });
