// npm run deploy -- --stage staging|production [--assembly cdk.out --first-deploy-assembly
// cdk.out.first] [--outputs-file outputs.json] [--dry-run]: the one command that deploys a stage,
// first time or not (docs/deploying.md). It asks CloudFormation whether the stack exists, with
// the caller's credentials, in the region the deploy goes to (the assembly's or the stage's pin,
// else the caller's), and runs the plan of tools/deploy/plan.ts; --dry-run
// prints the plan and runs nothing. The pipeline (.github/workflows/staging.yml, release.yml) runs it too.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { stageEnvironment, stageRegionEnvVar } from '../../infra/stage-deployment.ts';
import { DEPLOYED_STAGES, type DeployedStage, stackName } from '../../infra/stages.ts';
import { awsSetupProblem } from '../aws-setup.ts';
import { planDeploy, RefusedDeploy } from './plan.ts';
import { regionRefusal } from './region.ts';

const USAGE = `Usage: npm run deploy -- --stage staging|production [--dry-run]
                  [--assembly <dir> --first-deploy-assembly <dir>] [--outputs-file <file>]

Deploys one stage's stack (PetStore-staging or PetStore-production), its first deploy included:
it asks CloudFormation for the stack's status, then runs cdk deploy once (or twice, the first
time: protections off, then on). Every run, --dry-run included, needs AWS access: credentials
(AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY) and AWS_REGION.

Options:
  --stage <stage>                staging or production (required)
  --dry-run                      print the cdk commands it would run, and run none
  --assembly <dir>               deploy this synthesized cloud assembly (cdk synth -o <dir>)
                                 instead of synthesizing the app
  --first-deploy-assembly <dir>  the same commit synthesized with -c firstDeploy=true (with
                                 --assembly, for a stage's first deploy)
  --outputs-file <file>          write the stack's outputs there
  -h, --help                     this text

Full guide: docs/deploying.md.`;

const fail = (message: string): never => {
  console.error(`deploy: ${message}`);
  process.exit(1);
};

const { values } = (() => {
  try {
    return parseArgs({
      options: {
        stage: { type: 'string' },
        assembly: { type: 'string' },
        'first-deploy-assembly': { type: 'string' },
        'outputs-file': { type: 'string' },
        'dry-run': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    });
  } catch (error) {
    // A typo (--dryrun) or a stray word: what was wrong, then what is right; never a stack trace.
    return fail(`${(error as Error).message}\n\n${USAGE}`);
  }
})();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const stage = values.stage as DeployedStage | undefined;
if (stage === undefined || !DEPLOYED_STAGES.includes(stage))
  fail(`--stage must be one of ${DEPLOYED_STAGES.join(', ')}\n\n${USAGE}`);

/**
 * The stack's status in `region`, the deploy's, or undefined when CloudFormation says it does not
 * exist there: asked in another region, it would say so of a live stack, and the first deploy
 * (protections off) would run over it.
 */
const stackStatus = async (stage: DeployedStage, region: string): Promise<string | undefined> => {
  const { CloudFormationClient, DescribeStacksCommand } = await import('@aws-sdk/client-cloudformation');
  try {
    const { Stacks } = await new CloudFormationClient({ region }).send(
      new DescribeStacksCommand({ StackName: stackName(stage) }),
    );
    return Stacks?.[0]?.StackStatus ?? fail(`CloudFormation described ${stackName(stage)} without a status`);
  } catch (error) {
    const { name, message } = error as Error;
    // How CloudFormation answers for a stack it has never had (or has deleted).
    if (name === 'ValidationError' && /does not exist/.test(message)) return undefined;
    // Anything else (no credentials, AccessDenied, throttling) must not pass for "no stack":
    // that would start a first deploy over a stage that exists.
    const setup = awsSetupProblem(error);
    if (setup)
      return fail(`cannot read ${stackName(stage)}'s status, which every deploy (--dry-run too) needs: ${setup}`);
    return fail(`cannot read ${stackName(stage)}'s status (${name}: ${message})`);
  }
};

/**
 * The region an assembly's stack was synthesized for (`aws://<account>/<region>` in its manifest),
 * when it names one: a pinned stage's, which `cdk deploy --app` deploys to whatever the environment
 * says now (the pipeline's deploy jobs set no pin of their own). Undefined for an agnostic stack, or
 * no manifest (cdk then says what is wrong with the assembly).
 */
const assemblyRegion = (assembly: string | undefined, stage: DeployedStage): string | undefined => {
  if (assembly === undefined || !existsSync(join(assembly, 'manifest.json'))) return undefined;
  const manifest = JSON.parse(readFileSync(join(assembly, 'manifest.json'), 'utf8')) as {
    artifacts?: Record<string, { environment?: string }>;
  };
  const region = /^aws:\/\/[^/]+\/(.+)$/.exec(manifest.artifacts?.[stackName(stage)]?.environment ?? '')?.[1];
  return region === undefined || region === 'unknown-region' ? undefined : region;
};

/**
 * The region the deploy goes to: the assemblies', the stage's pinned one (which must agree with
 * them), else the caller's (as the CDK CLI takes it).
 */
const deployRegion = async (stage: DeployedStage): Promise<string> => {
  const pinned = stageEnvironment(stage)?.region;
  const synthesized = [values.assembly, values['first-deploy-assembly']].map((dir) => assemblyRegion(dir, stage));
  const named = [...new Set([...synthesized, pinned].filter((region) => region !== undefined))];
  if (named.length > 1)
    return fail(
      `${stackName(stage)} would deploy to more than one region (${named.join(', ')}): the assemblies and ${stageRegionEnvVar(stage)} must name the same one`,
    );
  if (named[0] !== undefined) return named[0];
  const { CloudFormationClient } = await import('@aws-sdk/client-cloudformation');
  return new CloudFormationClient({}).config
    .region()
    .catch((error: unknown) =>
      fail(
        `cannot tell the region to deploy to, which every deploy (--dry-run too) needs: ${awsSetupProblem(error) ?? 'no AWS region set. Set AWS_REGION to the region the stage is deployed in (or give your profile a region).'}`,
      ),
    );
};

const main = async (stage: DeployedStage) => {
  // Before any call that changes anything: a region the stack cannot be created in.
  const region = await deployRegion(stage);
  const refusal = regionRefusal(region);
  if (refusal !== undefined) return fail(refusal);
  const status = await stackStatus(stage, region);
  let plan: ReturnType<typeof planDeploy>;
  try {
    plan = planDeploy(
      {
        stage,
        assembly: values.assembly,
        firstDeployAssembly: values['first-deploy-assembly'],
        outputsFile: values['outputs-file'],
      },
      status,
    );
  } catch (error) {
    if (error instanceof RefusedDeploy) return fail(error.message);
    throw error;
  }
  console.log(`deploy: ${plan.reason}`);
  for (const args of plan.commands) {
    console.log(`deploy: ${values['dry-run'] ? 'would run' : 'running'}: cdk ${args.join(' ')}`);
    if (values['dry-run']) continue;
    const run = spawnSync('npx', ['cdk', ...args], { stdio: 'inherit' });
    if (run.status !== 0) fail(`cdk ${args[0]} exited ${run.status ?? run.signal}; nothing after it ran`);
  }
};

await main(stage as DeployedStage);
