// Safe deploys: CodeDeploy moves each function's `live` alias (api-function.ts) to the version
// a deploy publishes. First the function's pre-traffic hook (release-hook.ts) invokes the new
// version with the release checks; then a canary sends a share of the traffic to it for some
// minutes, then all of it. A failed check or a release alarm firing on the new version
// (infra/monitoring/release-alarms.ts) rolls the alias back. CloudFormation starts the shift
// through the alias's UpdatePolicy and waits for it: a rolled-back shift fails the deploy, and
// CloudFormation rolls the stack back (docs/runbook.md: Releases).
import { type CfnElement, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  LambdaApplication,
  LambdaDeploymentConfig,
  LambdaDeploymentGroup,
  TimeBasedCanaryTrafficRouting,
} from 'aws-cdk-lib/aws-codedeploy';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { minutesToAlarm } from '../monitoring/alarm-settings.ts';
import type { ReleaseAlarms } from '../monitoring/release-alarms.ts';
import { type StageSettings, stackName } from '../stages.ts';
import type { ApiFunction } from './api-function.ts';
import type { FunctionName } from './functions.ts';
import { ReleaseHook } from './release-hook.ts';

export interface DeploymentProps {
  readonly settings: StageSettings;
  readonly functions: Readonly<Record<FunctionName, ApiFunction>>;
  /** Each function's alarms on its new version: its deployment group rolls back when one fires. */
  readonly releaseAlarms: ReleaseAlarms;
}

export class Deployment extends Construct {
  readonly groups: Readonly<Record<FunctionName, LambdaDeploymentGroup>>;
  readonly hooks: Readonly<Record<FunctionName, ReleaseHook>>;
  /**
   * The stage's probe key: a `read` key the authorizer's checks must see let in. The stack makes
   * the secret, and mints the key into it (infra/constructs/read-key.ts) as the keys tool would:
   * the tool lists it like any other (docs/deploying.md: The release probe key).
   */
  readonly probeKey: Secret;

  constructor(scope: Construct, id: string, { settings, functions, releaseAlarms }: DeploymentProps) {
    super(scope, id);
    const name = stackName(settings.stage);
    const { deployment } = settings;
    // The arithmetic of docs/runbook.md (Releases): a canary that ends before its alarms can fire
    // sends every request to a faulty version unwatched.
    const needed = minutesToAlarm(settings.releaseAlarms);
    if (deployment.minutes <= needed) {
      throw new Error(
        `${name}: a ${deployment.minutes}-minute canary ends before its release alarms can fire (${needed} minutes)`,
      );
    }
    const application = new LambdaApplication(this, 'Application', { applicationName: name });
    const config = new LambdaDeploymentConfig(this, 'Canary', {
      deploymentConfigName: `${name}-Canary${deployment.percent}Percent${deployment.minutes}Minutes`,
      trafficRouting: new TimeBasedCanaryTrafficRouting({
        percentage: deployment.percent,
        interval: Duration.minutes(deployment.minutes),
      }),
    });

    // One role for the four groups. CodeDeploy adds AWS's policy for Lambda deployments to it.
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('codedeploy.amazonaws.com'),
      description: `CodeDeploy shifts the live aliases of ${name}`,
    });
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
      reason:
        'The policy AWS documents and keeps for CodeDeploy on Lambda (LambdaDeploymentGroup always attaches it): ' +
        'read and update aliases, read alarms, and hooks or topics only with CodeDeploy names. A copy kept here would ' +
        'miss what CodeDeploy needs next; nothing of it reaches the tables or the keys.',
    });

    this.probeKey = new Secret(this, 'ProbeKey', {
      // Under the stack's name, as the stage's CloudFormation execution policy expects (infra/ci/execution-policy.ts).
      secretName: `${name}/release-probe-key`,
      description: `The release checks' probe key of ${name}: a read key (docs/deploying.md)`,
      // A placeholder until the stack's read key replaces it (infra/constructs/read-key.ts).
      generateSecretString: { passwordLength: 32, excludePunctuation: true, excludeUppercase: true },
      // It holds a key of the keys table, which outlives the secret: revoke the key, not the secret.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(this.probeKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'It holds an API key that only the release checks use, minted and revoked by the stack: replacing it is ' +
        "raising the stage's readKeyGeneration (docs/deploying.md), not a Secrets Manager rotation function.",
    });

    const groups = {} as Record<FunctionName, LambdaDeploymentGroup>;
    const hooks = {} as Record<FunctionName, ReleaseHook>;
    for (const [functionName, fn] of Object.entries(functions) as [FunctionName, ApiFunction][]) {
      const hook = new ReleaseHook(this, `${functionName}Checks`, {
        settings,
        name: functionName,
        target: fn,
        probeKey: functionName === 'authorizer' ? this.probeKey : undefined,
      });
      const alarms = releaseAlarms[functionName];
      groups[functionName] = new LambdaDeploymentGroup(this, functionName, {
        application,
        alias: fn.alias,
        deploymentConfig: config,
        role,
        preHook: hook.function,
        alarms: [...alarms],
        // Roll back when a watched alarm fires, when a check fails, and when the shift is stopped.
        autoRollback: { deploymentInAlarm: true, failedDeployment: true, stoppedDeployment: true },
      });
      // The shift starts only once the hook names and may invoke the new version, and the
      // alarms watch it: each of them changes with every deploy, so each must be updated first.
      fn.alias.node.addDependency(hook, ...alarms);
      hooks[functionName] = hook;
      const hookId = Stack.of(this).getLogicalId(hook.function.node.defaultChild as CfnElement);
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${hookId}.Arn>:*]`,
        reason:
          'LambdaDeploymentGroup lets CodeDeploy invoke the hook function and its versions (grantInvoke): the one ' +
          `function that checks ${functionName}, nothing else.`,
      });
    }
    this.groups = groups;
    this.hooks = hooks;
  }
}
