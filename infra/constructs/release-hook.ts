// The BeforeAllowTraffic hook of one function (functions/pre-traffic-hook.ts): a Lambda function
// of its own (a bundled function, bundled-function.ts) that CodeDeploy invokes before it sends
// any traffic to the new version. It may do three things and nothing else: invoke that one version (its ARN changes with every deploy,
// and so does this grant), report to its deployment group (LambdaDeploymentGroup grants it
// PutLifecycleEventHookExecutionStatus on the group), and, for the authorizer, read the
// stage's probe key. It writes to no table.
import { Duration } from 'aws-cdk-lib';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { RELEASE_CHECK_ENV } from '../../shared/release-checks/settings.ts';
import type { StageSettings } from '../stages.ts';
import type { ApiFunction } from './api-function.ts';
import { BundledFunction } from './bundled-function.ts';
import type { FunctionName } from './functions.ts';

const RELEASE_HOOK_ENTRY = 'functions/pre-traffic-hook.ts';

/** Checks take a few invocations of a warm or cold function: a minute covers cold starts and retries. */
const HOOK_TIMEOUT_SECONDS = 60;

export interface ReleaseHookProps {
  readonly settings: StageSettings;
  readonly name: FunctionName;
  /** The function under test: its new version is what the hook invokes. */
  readonly target: ApiFunction;
  /** The authorizer's hook: the secret holding the stage's probe key, which it may read. */
  readonly probeKey?: ISecret | undefined;
}

export class ReleaseHook extends BundledFunction {
  constructor(scope: Construct, id: string, { settings, name, target, probeKey }: ReleaseHookProps) {
    super(scope, id, {
      entry: RELEASE_HOOK_ENTRY,
      settings,
      roleDescription: `Pre-traffic checks of ${name} (${settings.stage})`,
      grants: [
        // The version this deploy published, by its qualified ARN: not `live`, not any other version.
        // The grant changes with every deploy, seconds before CodeDeploy runs the hook, and IAM is
        // eventually consistent: the hook retries AccessDenied for a while (shared/release-checks/lambda-target.ts).
        { actions: ['lambda:InvokeFunction'], resources: [target.version.functionArn] },
        ...(probeKey ? [{ actions: ['secretsmanager:GetSecretValue'], resources: [probeKey.secretArn] }] : []),
      ],
      function: {
        description: `Pet Store release checks of ${name}: run before CodeDeploy shifts traffic`,
        memorySize: 256,
        timeout: Duration.seconds(HOOK_TIMEOUT_SECONDS),
        environment: {
          [RELEASE_CHECK_ENV.function]: name,
          [RELEASE_CHECK_ENV.version]: target.version.functionArn,
          [RELEASE_CHECK_ENV.stage]: settings.stage,
          ...(probeKey && { [RELEASE_CHECK_ENV.probeKeySecret]: probeKey.secretArn }),
        },
      },
      acknowledged: {
        noDeadLetterQueue:
          'CodeDeploy invokes the hook asynchronously and waits for its report. Checks that cannot run are reported ' +
          'Failed at once (functions/pre-traffic-hook.ts); only a hook that crashes before it can report leaves ' +
          'CodeDeploy to fail the deployment (and roll it back) when the lifecycle event times out. A queue of ' +
          'failed hook events would hold nothing anyone replays.',
        xrayWildcard:
          'Only the two X-Ray actions that active tracing adds (xray:PutTraceSegments, xray:PutTelemetryRecords): ' +
          'X-Ray has no resource-level permissions. The hook invokes one version ARN and reads one secret.',
      },
    });
  }
}
