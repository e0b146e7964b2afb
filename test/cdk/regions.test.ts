// Every commercial region: a stage's first deploy can create listPets there, or `npm run deploy`
// refuses at once, naming the region and what is missing (tools/deploy/region.ts). The regions
// are CloudFormation's as cfn-lint lists them (support/cloudformation-regions.json), not CDK's
// table. listPets' layer ARN comes from the template's own lookup (the Fn::FindInMap an
// environment-agnostic synth writes, per region), and the stage's execution policy, resolved in
// that region, must let CloudFormation read it: CreateFunction needs lambda:GetLayerVersion on
// each layer version ("Adding layers to functions":
// https://docs.aws.amazon.com/lambda/latest/dg/adding-layers.html).
import { readFileSync } from 'node:fs';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Architecture, Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { beforeAll, describe, expect, test } from 'vitest';
import { cursorSecretExtension } from '../../infra/constructs/functions.ts';
import { DEPLOYED_STAGES } from '../../infra/stages.ts';
import { regionRefusal } from '../../tools/deploy/region.ts';
import { ciTemplate, decideFor, executionPolicyOf } from './support/execution-simulation.ts';
import { type SynthesizedApp, synthesized, TEST_ENV } from './support/synth.ts';

const { regions } = JSON.parse(
  readFileSync(new URL('./support/cloudformation-regions.json', import.meta.url), 'utf8'),
) as { regions: string[] };
/** The commercial partition: not China, GovCloud, the isolated regions or the European Sovereign Cloud. */
const COMMERCIAL = regions.filter((r) => !/^(cn|us-gov|us-iso[a-z]*|eu-isoe|eusc)-/.test(r));

let app: SynthesizedApp;
/** listPets' layer as an environment-agnostic template names it: a lookup by AWS::Region. */
let layerByRegion: Record<string, string>;
beforeAll(async () => {
  app = await synthesized();
  const stack = new Stack(new App(), 'Agnostic');
  new LambdaFunction(stack, 'ListPets', {
    runtime: Runtime.NODEJS_LATEST,
    architecture: Architecture.ARM_64,
    handler: 'index.handler',
    code: Code.fromInline('exports.handler = async () => {}'),
    paramsAndSecrets: cursorSecretExtension(),
  });
  const template = Template.fromStack(stack).toJSON();
  const fn = Object.values(template.Resources).find((r: any) => r.Type === 'AWS::Lambda::Function') as any;
  const [mapping, , key] = fn.Properties.Layers[0]['Fn::FindInMap'];
  expect(fn.Properties.Layers[0]['Fn::FindInMap'][1]).toEqual({ Ref: 'AWS::Region' });
  layerByRegion = Object.fromEntries(
    Object.entries(template.Mappings[mapping] as Record<string, Record<string, string>>).map(([r, row]) => [
      r,
      row[key]!,
    ]),
  );
}, 300_000);

test("the agnostic lookup gives, in the tests' region, the layer the synthesized listPets has", () => {
  const listPets = app.template('staging').Resources[app.index.staging.functions.listPets.function]!;
  expect(listPets.Properties!.Layers).toEqual([layerByRegion[TEST_ENV.region]]);
  expect(COMMERCIAL.length).toBeGreaterThan(30);
});

describe.each(COMMERCIAL)('%s', (region) => {
  test('listPets can be created there, or the deploy refuses at once and says why', async () => {
    const layer = layerByRegion[region];
    if (layer === undefined) {
      const refusal = regionRefusal(region);
      expect(refusal).toContain(region);
      expect(refusal).toContain('Parameters and Secrets Lambda Extension');
      return;
    }
    expect(regionRefusal(region)).toBeUndefined();
    expect(layer).toMatch(
      new RegExp(`^arn:aws:lambda:${region}:\\d{12}:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:\\d+$`),
    );
    for (const stage of DEPLOYED_STAGES) {
      // The policy as a deploy in this region resolves it.
      const policy = JSON.parse(
        JSON.stringify(executionPolicyOf(ciTemplate(app), stage)).replaceAll(TEST_ENV.region, region),
      );
      expect(await decideFor(stage, policy, { action: 'lambda:GetLayerVersion', resource: layer }), stage).toBe(
        'Allowed',
      );
    }
  });
});
