// `npm run smoke -- --base-url <base address> --key <key> [--read-only]`, or
// `npm run smoke -- --stage staging|production [--read-only]` (the base address from the
// stage's stack outputs, the key from PETSTORE_SMOKE_KEY). Exit 0: every check held;
// 1: a rule is broken (the report names it); 2: the command itself was wrong.
import { parseArgs } from 'node:util';
import { DEPLOYED_STAGES, type DeployedStage, STACK_OUTPUTS, stackName } from '../../infra/stages.ts';
import { runSmokeChecks } from './checks.ts';
import { formatReport, passed } from './report.ts';

const USAGE = `Usage: npm run smoke -- --base-url <https://…/v1> --key <pet_…> [--read-only]
       npm run smoke -- --stage staging|production [--read-only]   (key from PETSTORE_SMOKE_KEY)
Production is always checked read-only: nothing is created there, and write mode is refused.`;

const usage = (problem: string): never => {
  console.error(`smoke: ${problem}\n${USAGE}`);
  process.exit(2);
};

const { values } = (() => {
  try {
    return parseArgs({
      options: {
        'base-url': { type: 'string' },
        key: { type: 'string' },
        stage: { type: 'string' },
        'read-only': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    return usage((error as Error).message);
  }
})();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const stage = values.stage as DeployedStage | undefined;
if (stage !== undefined && !DEPLOYED_STAGES.includes(stage)) usage(`unknown stage ${stage}`);
if (stage && values['base-url']) usage('give --stage or --base-url, not both');
const WRITE_REFUSED = 'production is checked read-only only: add --read-only';
if (stage === 'production' && !values['read-only']) usage(WRITE_REFUSED);

/** The stage's base address, from its stack's BaseUrl output (AWS credentials of the caller). */
const stageBaseUrl = async (stage: DeployedStage): Promise<string> => {
  const { CloudFormationClient, DescribeStacksCommand } = await import('@aws-sdk/client-cloudformation');
  const { Stacks } = await new CloudFormationClient({})
    .send(new DescribeStacksCommand({ StackName: stackName(stage) }))
    .catch((error: Error) =>
      usage(`cannot read stack ${stackName(stage)} (AWS credentials and AWS_REGION?): ${error.name}: ${error.message}`),
    );
  const url = Stacks?.[0]?.Outputs?.find((o) => o.OutputKey === STACK_OUTPUTS.baseUrl)?.OutputValue;
  return url ?? usage(`stack ${stackName(stage)} has no ${STACK_OUTPUTS.baseUrl} output; is it deployed?`);
};

const baseUrl = stage ? await stageBaseUrl(stage) : (values['base-url'] ?? usage('--base-url or --stage is required'));
const key =
  values.key ??
  (stage ? process.env.PETSTORE_SMOKE_KEY : undefined) ??
  usage(stage ? 'PETSTORE_SMOKE_KEY is not set (or give --key)' : '--key is required');
// The API Gateway stage is the path's first segment: …/production/v1.
if (/^\/production\//.test(new URL(baseUrl).pathname) && !values['read-only']) usage(WRITE_REFUSED);

const results = await runSmokeChecks({ baseUrl, key, readOnly: values['read-only'] });
console.log(formatReport(results, `${baseUrl} (${values['read-only'] ? 'read-only' : 'write mode'})`));
process.exit(passed(results) ? 0 : 1);
