// CodeDeploy's BeforeAllowTraffic hook of one function: runs that function's release checks
// (shared/release-checks) against the version the deploy published, before any client is sent
// to it, and reports Succeeded or Failed; Failed stops the deployment and rolls it back. The
// stack sets which function and version (infra/constructs/release-hook.ts).
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { CodeDeployClient, PutLifecycleEventHookExecutionStatusCommand } from '@aws-sdk/client-codedeploy';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { KEY_PATTERN } from '../shared/domain/api-keys.ts';
import { type CheckedFunction, failedChecks, releaseChecks } from '../shared/release-checks/checks.ts';
import { lambdaTarget } from '../shared/release-checks/lambda-target.ts';
import { RELEASE_CHECK_ENV } from '../shared/release-checks/settings.ts';

interface LifecycleEvent {
  readonly DeploymentId: string;
  readonly LifecycleEventHookExecutionId: string;
}

const codeDeploy = new CodeDeployClient({});
const lambda = new LambdaClient({});

export const handler = async ({ DeploymentId, LifecycleEventHookExecutionId }: LifecycleEvent): Promise<void> => {
  const env = (name: string) => process.env[name] ?? '';
  const fn = env(RELEASE_CHECK_ENV.function) as CheckedFunction;
  const probeKeySecret = env(RELEASE_CHECK_ENV.probeKeySecret);
  // Until an operator puts the stage's probe key in, the secret holds a placeholder: no key.
  const secret = probeKeySecret ? await getSecret<string>(probeKeySecret) : undefined;
  const probeKey = secret !== undefined && KEY_PATTERN.test(secret) ? secret : undefined;
  const results = await releaseChecks[fn](lambdaTarget(lambda, env(RELEASE_CHECK_ENV.version)), {
    stage: env(RELEASE_CHECK_ENV.stage),
    probeKey,
  });
  const failed = failedChecks(results);
  // One line for on-call: which version, which checks, what was wrong (never the probe key).
  console.log(
    JSON.stringify({
      message: 'release checks',
      deploymentId: DeploymentId,
      function: fn,
      version: env(RELEASE_CHECK_ENV.version),
      outcome: failed.length === 0 ? 'Succeeded' : 'Failed',
      results,
    }),
  );
  await codeDeploy.send(
    new PutLifecycleEventHookExecutionStatusCommand({
      deploymentId: DeploymentId,
      lifecycleEventHookExecutionId: LifecycleEventHookExecutionId,
      status: failed.length === 0 ? 'Succeeded' : 'Failed',
    }),
  );
};
