// The BeforeAllowTraffic hook of one function (functions/pre-traffic-hook.ts): a Lambda function
// of its own that CodeDeploy invokes before it sends any traffic to the new version. It may do
// three things and nothing else: invoke that one version (its ARN changes with every deploy,
// and so does this grant), report to its deployment group (LambdaDeploymentGroup grants it
// PutLifecycleEventHookExecutionStatus on the group), and, for the authorizer, read the
// stage's probe key. It writes to no table.
import { fileURLToPath } from 'node:url';
import { Duration, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { RELEASE_CHECK_ENV } from '../../shared/release-checks/settings.ts';
import type { StageSettings } from '../stages.ts';
import { type ApiFunction, lambdaBundling } from './api-function.ts';
import { removalPolicyOf } from './data.ts';
import type { FunctionName } from './functions.ts';

const REPOSITORY_ROOT = fileURLToPath(new URL('../../', import.meta.url));
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

export class ReleaseHook extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;

  constructor(scope: Construct, id: string, { settings, name, target, probeKey }: ReleaseHookProps) {
    super(scope, id);
    const logGroup = new LogGroup(this, 'Logs', {
      retention: settings.logRetentionDays,
      removalPolicy: removalPolicyOf(settings),
    });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Pre-traffic checks of ${name} (${settings.stage})`,
    });
    const allow = (actions: string[], resources: string[]) =>
      this.role.addToPrincipalPolicy(new PolicyStatement({ actions, resources }));
    allow(['logs:CreateLogStream', 'logs:PutLogEvents'], [logGroup.logGroupArn]);
    // The version this deploy published, by its qualified ARN: not `live`, not any other version.
    // The grant changes with every deploy, seconds before CodeDeploy runs the hook, and IAM is
    // eventually consistent: the hook retries AccessDenied for a while (shared/release-checks/lambda-target.ts).
    allow(['lambda:InvokeFunction'], [target.version.functionArn]);
    if (probeKey) allow(['secretsmanager:GetSecretValue'], [probeKey.secretArn]);

    this.function = new NodejsFunction(this, 'Function', {
      entry: `${REPOSITORY_ROOT}${RELEASE_HOOK_ENTRY}`,
      handler: 'handler',
      projectRoot: REPOSITORY_ROOT,
      depsLockFilePath: `${REPOSITORY_ROOT}package-lock.json`,
      description: `Pet Store release checks of ${name}: run before CodeDeploy shifts traffic`,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: 256,
      timeout: Duration.seconds(HOOK_TIMEOUT_SECONDS),
      role: this.role,
      logGroup,
      tracing: Tracing.ACTIVE,
      environment: {
        [RELEASE_CHECK_ENV.function]: name,
        [RELEASE_CHECK_ENV.version]: target.version.functionArn,
        [RELEASE_CHECK_ENV.stage]: settings.stage,
        ...(probeKey && { [RELEASE_CHECK_ENV.probeKeySecret]: probeKey.secretArn }),
      },
      bundling: lambdaBundling(),
    });
    Validations.of(this.function).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason:
        'CodeDeploy invokes the hook asynchronously and waits for its report. Checks that cannot run are reported ' +
        'Failed at once (functions/pre-traffic-hook.ts); only a hook that crashes before it can report leaves ' +
        'CodeDeploy to fail the deployment (and roll it back) when the lifecycle event times out. A queue of ' +
        'failed hook events would hold nothing anyone replays.',
    });
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Only the two X-Ray actions that active tracing adds (xray:PutTraceSegments, xray:PutTelemetryRecords): ' +
        'X-Ray has no resource-level permissions. The hook invokes one version ARN and reads one secret.',
    });
  }
}
