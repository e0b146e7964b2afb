// Safe deploys: CodeDeploy moves each function's `live` alias (api-function.ts) to the version
// a deploy publishes, as the stage settings say: all at once (staging) or a canary (production)
// that rolls back by itself when one of the stage's error or latency alarms fires during the
// shift. CloudFormation starts the shift through the alias's UpdatePolicy and waits for it:
// a rolled-back shift fails the deploy, and CloudFormation rolls the stack back (README: Roll back).
import { Duration, Validations } from 'aws-cdk-lib';
import type { IAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import {
  type ILambdaDeploymentConfig,
  LambdaApplication,
  LambdaDeploymentConfig,
  LambdaDeploymentGroup,
  TimeBasedCanaryTrafficRouting,
} from 'aws-cdk-lib/aws-codedeploy';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { type StageSettings, stackName } from '../stages.ts';
import type { ApiFunction } from './api-function.ts';
import type { FunctionName } from './functions.ts';

/** The alarms (by construct id, infra/monitoring/alarms.ts) that stop a shift: the stage's, and the function's own. */
export const rollbackAlarmIds = (name: FunctionName): string[] => [
  'Api5xxRate',
  'ApiLatencyP99',
  name === 'authorizer' ? 'AuthorizerErrors' : `LambdaErrors-${name}`,
];

export interface DeploymentProps {
  readonly settings: StageSettings;
  readonly functions: Readonly<Record<FunctionName, ApiFunction>>;
  /** Every alarm of the stage; each deployment group watches those of rollbackAlarmIds. */
  readonly alarms: readonly IAlarm[];
}

export class Deployment extends Construct {
  readonly groups: Readonly<Record<FunctionName, LambdaDeploymentGroup>>;

  constructor(scope: Construct, id: string, { settings, functions, alarms }: DeploymentProps) {
    super(scope, id);
    const name = stackName(settings.stage);
    const application = new LambdaApplication(this, 'Application', { applicationName: name });
    const { deployment } = settings;
    const config: ILambdaDeploymentConfig =
      deployment.kind === 'allAtOnce'
        ? LambdaDeploymentConfig.ALL_AT_ONCE
        : new LambdaDeploymentConfig(this, 'Canary', {
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

    const byId = new Map(alarms.map((alarm) => [alarm.node.id, alarm]));
    const groups = {} as Record<FunctionName, LambdaDeploymentGroup>;
    for (const [functionName, fn] of Object.entries(functions) as [FunctionName, ApiFunction][]) {
      const watched = rollbackAlarmIds(functionName).map((alarmId) => {
        const alarm = byId.get(alarmId);
        if (!alarm) throw new Error(`no alarm ${alarmId} to watch while deploying ${functionName}`);
        return alarm;
      });
      groups[functionName] = new LambdaDeploymentGroup(this, functionName, {
        application,
        alias: fn.alias,
        deploymentConfig: config,
        role,
        alarms: watched,
        // Roll back when a watched alarm fires, and when the shift itself fails.
        autoRollback: { deploymentInAlarm: true, failedDeployment: true, stoppedDeployment: true },
      });
    }
    this.groups = groups;
  }
}
