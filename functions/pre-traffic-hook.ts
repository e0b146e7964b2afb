// CodeDeploy's BeforeAllowTraffic hook of one function: runs that function's release checks
// (shared/release-checks) against the version the deploy published, before any client is sent
// to it, and reports Succeeded or Failed; Failed stops the deployment and rolls it back. The
// stack sets which function and version (infra/constructs/release-hook.ts).
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { CodeDeployClient, PutLifecycleEventHookExecutionStatusCommand } from '@aws-sdk/client-codedeploy';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { KEY_PATTERN } from '../shared/domain/api-keys.ts';
import {
  type CheckedFunction,
  type CheckResult,
  failedChecks,
  releaseChecks,
} from '../shared/release-checks/checks.ts';
import { lambdaTarget } from '../shared/release-checks/lambda-target.ts';
import { RELEASE_CHECK_ENV } from '../shared/release-checks/settings.ts';

interface LifecycleEvent {
  readonly DeploymentId: string;
  readonly LifecycleEventHookExecutionId: string;
}

const codeDeploy = new CodeDeployClient({});
const lambda = new LambdaClient({});

/** The checks' results, or the fault that stopped them (a secret or an invoke that failed). */
const runChecks = async (fn: CheckedFunction, version: string, env: (name: string) => string) => {
  const probeKeySecret = env(RELEASE_CHECK_ENV.probeKeySecret);
  // Until the stack's read key replaces it (infra/constructs/read-key.ts), the secret holds a placeholder: no key.
  const secret = probeKeySecret ? await getSecret<string>(probeKeySecret) : undefined;
  const probeKey = secret !== undefined && KEY_PATTERN.test(secret) ? secret : undefined;
  return releaseChecks[fn](lambdaTarget(lambda, version), { stage: env(RELEASE_CHECK_ENV.stage), probeKey });
};

export const handler = async ({ DeploymentId, LifecycleEventHookExecutionId }: LifecycleEvent): Promise<void> => {
  const env = (name: string) => process.env[name] ?? '';
  const fn = env(RELEASE_CHECK_ENV.function) as CheckedFunction;
  const version = env(RELEASE_CHECK_ENV.version);
  // A check that cannot run is a failed release, reported at once: unreported, CodeDeploy would
  // wait out the hook's timeout with the stack held, and Lambda would retry the hook meanwhile.
  const results = await runChecks(fn, version, env).catch((error: Error): CheckResult[] => [
    { check: 'the release checks ran', problem: `${error.name}: ${error.message}` },
  ]);
  const failed = failedChecks(results);
  const status = failed.length === 0 ? 'Succeeded' : 'Failed';
  // One line for on-call: which version, which checks, what was wrong (never the probe key).
  console.log(
    JSON.stringify({
      message: 'release checks',
      deploymentId: DeploymentId,
      function: fn,
      version,
      outcome: status,
      results,
    }),
  );
  await codeDeploy.send(
    new PutLifecycleEventHookExecutionStatusCommand({
      deploymentId: DeploymentId,
      lifecycleEventHookExecutionId: LifecycleEventHookExecutionId,
      status,
    }),
  );
};
