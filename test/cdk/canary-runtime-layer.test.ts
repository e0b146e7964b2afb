// A stage's first create makes its smoke canary, and Synthetics makes the canary's Lambda function
// with the caller's credentials, the stage's CloudFormation execution role (infra/ci/execution-policy.ts),
// on the layer of the canary's runtime version, which AWS publishes in each region. CreateFunction
// needs lambda:GetLayerVersion on each layer version ("Adding layers to functions":
// https://docs.aws.amazon.com/lambda/latest/dg/adding-layers.html). Which layer a runtime version
// is: AWS's table in "Test a canary locally", copied in support/synthetics-runtime-layers.json, not
// the policy's own pattern. AWS's policy for those who create canaries, CloudWatchSyntheticsFullAccess
// (https://docs.aws.amazon.com/aws-managed-policy/latest/reference/CloudWatchSyntheticsFullAccess.html),
// grants the same reads: GetLayerVersion on `layer:AWS-CW-Synthetics*:*` and s3:GetObjectVersion on
// Synthetics' library buckets, `aws-synthetics-library-*`.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, test } from 'vitest';
import { DEPLOYED_STAGES } from '../../infra/stages.ts';
import { ciTemplate, decideFor, executionPolicyOf } from './support/execution-simulation.ts';
import { type SynthesizedApp, synthesized, TEST_ENV } from './support/synth.ts';

const { runtimes } = JSON.parse(
  readFileSync(new URL('./support/synthetics-runtime-layers.json', import.meta.url), 'utf8'),
) as { runtimes: Record<string, Record<string, string>> };

let app: SynthesizedApp;
beforeAll(async () => {
  app = await synthesized();
}, 300_000);

/** The canary's runtime version, as the stage's template names it. */
const runtimeOf = (stage: (typeof DEPLOYED_STAGES)[number]): string => {
  const canaries = Object.values(app.template(stage).Resources).filter((r) => r.Type === 'AWS::Synthetics::Canary');
  expect(canaries).toHaveLength(1);
  return canaries[0]!.Properties!.RuntimeVersion as string;
};

describe.each(DEPLOYED_STAGES)('%s', (stage) => {
  test("the canary's runtime version is one whose layers AWS's table gives (update the table with the runtime)", () => {
    expect(Object.keys(runtimes)).toContain(runtimeOf(stage));
  });

  test('in every region of the table, the execution role can read the runtime layer and the Synthetics library', async () => {
    const layers = runtimes[runtimeOf(stage)]!;
    expect(Object.keys(layers).length).toBeGreaterThan(30);
    for (const [region, layer] of Object.entries(layers)) {
      // The policy as a deploy in this region resolves it.
      const policy = JSON.parse(
        JSON.stringify(executionPolicyOf(ciTemplate(app), stage)).replaceAll(TEST_ENV.region, region),
      );
      expect(await decideFor(stage, policy, { action: 'lambda:GetLayerVersion', resource: layer }), layer).toBe(
        'Allowed',
      );
      const library = `arn:aws:s3:::aws-synthetics-library-${region}/${runtimeOf(stage)}/nodejs.zip`;
      expect(await decideFor(stage, policy, { action: 's3:GetObjectVersion', resource: library }), library).toBe(
        'Allowed',
      );
    }
  });
});
