// Whether a stage can be deployed in a region at all, decided before any change set: listPets
// carries AWS's Parameters and Secrets Lambda Extension, whose layer ARN the template looks up
// per region in CDK's table of it (aws-cdk-lib/region-info, the Fn::FindInMap the synthesized
// template holds). Where that table has no row, CloudFormation refuses the change set after the
// deploy has published assets and made it; this says so at once, naming the region and the layer.
import { RegionInfo } from 'aws-cdk-lib/region-info';
import { EXTENSION_LAYER } from '../../infra/stage-deployment.ts';

/** The regions whose layer ARN CDK knows (where the stack's lookup resolves). */
export const extensionRegions = (): string[] =>
  RegionInfo.regions
    .filter((info) => info.paramsAndSecretsLambdaLayerArn(EXTENSION_LAYER.version, EXTENSION_LAYER.architecture))
    .map((info) => info.name)
    .sort();

/** Why a stage cannot be deployed to `region`, or undefined when it can. */
export const regionRefusal = (region: string): string | undefined => {
  const { version, architecture } = EXTENSION_LAYER;
  if (RegionInfo.get(region).paramsAndSecretsLambdaLayerArn(version, architecture) !== undefined) return undefined;
  return (
    `${region}: no layer of AWS's Parameters and Secrets Lambda Extension (${version}, ${architecture}) ` +
    "for listPets there in CDK's table (aws-cdk-lib/region-info), so CloudFormation would refuse the change set. " +
    `Deploy to one of: ${extensionRegions().join(', ')} (docs/deploying.md, Regions).`
  );
};
