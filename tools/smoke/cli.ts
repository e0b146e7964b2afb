// `npm run smoke -- --base-url <base address> [--key <key>] [--read-only]`, or
// `npm run smoke -- --stage staging|production [--read-only]` (the base address from the
// stage's stack outputs), the key from PETSTORE_SMOKE_KEY unless --key gives it. Exit 0: every
// check held; 1: a rule is broken (the report names it); 2: the command itself was wrong, or
// nothing answers at the address.
import { parseArgs } from 'node:util';
import { DEPLOYED_STAGES, type DeployedStage, STACK_OUTPUTS, stackName } from '../../infra/stages.ts';
import { API_VERSION_PATH } from '../../shared/api/routes.ts';
import { runSmokeChecks } from './checks.ts';
import { formatReport, passed } from './report.ts';

const USAGE = `Usage: npm run smoke -- --base-url <https://…/v1> [--key <pet_…>] [--read-only]
       npm run smoke -- --stage staging|production [--read-only]
The key: PETSTORE_SMOKE_KEY, or --key (which npm echoes). A read key: --read-only.
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
// PETSTORE_SMOKE_KEY with --base-url too: a key on the command line is echoed by npm and kept in the shell's history.
const key =
  values.key ?? process.env.PETSTORE_SMOKE_KEY ?? usage('set PETSTORE_SMOKE_KEY (or give --key, which npm echoes)');
const url = URL.canParse(baseUrl) ? new URL(baseUrl) : usage(`--base-url ${baseUrl} is not an address`);
// Every operation is under the version's path: without it, each check would only report a 404.
if (!url.pathname.replace(/\/$/, '').endsWith(API_VERSION_PATH))
  usage(`${baseUrl} does not end in ${API_VERSION_PATH}, the operations' path (as npm start prints the address)`);
// The API Gateway stage is the path's first segment: …/production/v1.
if (/^\/production\//.test(url.pathname) && !values['read-only']) usage(WRITE_REFUSED);

// One request without a key first (no function runs for it): when nothing answers, one line
// says so rather than every check reporting "fetch failed".
try {
  await fetch(`${baseUrl.replace(/\/$/, '')}/pets`, { signal: AbortSignal.timeout(10_000) });
} catch (error) {
  const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
  console.error(
    `smoke: nothing answers at ${url.origin} (${cause?.code ?? cause?.message ?? (error as Error).message}): is the server running there?`,
  );
  process.exit(2);
}

const results = await runSmokeChecks({ baseUrl, key, readOnly: values['read-only'] });
console.log(formatReport(results, `${baseUrl} (${values['read-only'] ? 'read-only' : 'write mode'})`));
// Write mode with a read key: its creates are 403 FORBIDDEN, which write mode counts as failures.
const refusedCreates = results.some(
  (r) => r.violation?.request.startsWith('POST') && / 403\b|got 403/.test(r.violation.problem),
);
if (!values['read-only'] && refusedCreates)
  console.log('\nThe creates were 403 FORBIDDEN: is the key a read key? Check a read key with --read-only.');
process.exit(passed(results) ? 0 : 1);
