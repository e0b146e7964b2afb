// What a synthesized Lambda bundle holds: index.mjs and the chunks of esbuild's code splitting
// (infra/constructs/bundled-function.ts), each with its source map.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DeployedStage } from '../../../infra/stages.ts';
import type { FunctionName } from '../../../shared/api/routes.ts';
import type { SynthesizedApp } from './synth.ts';
import { resource } from './template.ts';

/** The folder `cdk synth` bundled the Lambda function `logicalId` into: its asset, named by its code's S3 key. */
export const assetDir = (app: SynthesizedApp, stage: DeployedStage, logicalId: string): string => {
  const key = resource(app.template(stage), logicalId).Properties!.Code.S3Key as string;
  return join(app.dir, `asset.${key.replace(/\.zip$/, '')}`);
};

/** The bundle of one of the API's functions. */
export const functionBundle = (app: SynthesizedApp, stage: DeployedStage, name: FunctionName): string =>
  assetDir(app, stage, app.index[stage].functions[name].function);

/** The sources one module's map names, relative to the bundle's folder as esbuild writes them. */
export const moduleSources = (dir: string, file: string): string[] =>
  (JSON.parse(readFileSync(join(dir, `${file}.map`), 'utf8')) as { sources: string[] }).sources;

/** The sources every module of the bundle in `dir` was built from. */
export const bundleSources = (dir: string): string[] =>
  readdirSync(dir)
    .filter((file) => file.endsWith('.mjs'))
    .flatMap((file) => moduleSources(dir, file));
