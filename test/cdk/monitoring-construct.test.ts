// The monitoring construct on its own, over imported resources (no bundling): the
// optional alarm e-mail, and one alarm per function and table it is given.
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { RestApi, Stage, type StageBase } from 'aws-cdk-lib/aws-apigateway';
import { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Function as LambdaFunction, Version } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { beforeAll, describe, expect, it } from 'vitest';
import { NO_ALARM_DESTINATIONS, parseAlarmDestinations } from '../../infra/monitoring/alarm-destinations.ts';
import { Monitoring } from '../../infra/monitoring/monitoring.ts';
import { savedQueries } from '../../infra/monitoring/queries.ts';
import { stageSettings } from '../../infra/stages.ts';
import { FUNCTION_NAMES, type FunctionName, routes } from '../../shared/api/routes.ts';
import { tables } from '../../shared/dynamodb/tables.ts';

const synth = (alarmDestinations = NO_ALARM_DESTINATIONS) => {
  const stack = new Stack(new App(), 'Probe', { env: { account: '123456789012', region: 'eu-west-1' } });
  const imported = (name: string) => ({
    function: LambdaFunction.fromFunctionName(stack, `${name}Fn`, `petstore-${name}`),
    version: Version.fromVersionArn(
      stack,
      `${name}Version`,
      `arn:aws:lambda:eu-west-1:123456789012:function:petstore-${name}:7`,
    ),
    logGroup: LogGroup.fromLogGroupName(stack, `${name}Logs`, `/aws/lambda/petstore-${name}`),
  });
  new Monitoring(stack, 'Monitoring', {
    stage: 'staging',
    alarms: stageSettings.staging.alarms,
    releaseAlarms: stageSettings.staging.releaseAlarms,
    alarmDestinations,
    alarmDestinationRequired: false,
    // An imported stage is a StageBase, typed as the IStage interface that lacks the metrics.
    apiStage: Stage.fromStageAttributes(stack, 'Stage', {
      stageName: 'staging',
      restApi: RestApi.fromRestApiId(stack, 'Api', 'abc123'),
    }) as StageBase,
    accessLogGroup: LogGroup.fromLogGroupName(stack, 'Access', 'access'),
    functions: Object.fromEntries(FUNCTION_NAMES.map((name) => [name, imported(name)])) as Record<
      FunctionName,
      ReturnType<typeof imported>
    >,
    tables: Object.fromEntries(
      tables.map((t) => [t.name, TableV2.fromTableName(stack, `${t.name}Table`, `petstore-${t.name}`)]),
    ),
  });
  return Template.fromStack(stack);
};

describe('Monitoring', () => {
  let withEmail: Template;
  let withoutEmail: Template;
  beforeAll(() => {
    withEmail = synth(parseAlarmDestinations('oncall@example.com'));
    withoutEmail = synth();
  }, 120_000);

  it('subscribes the alarm e-mail when one is given, and nothing otherwise', () => {
    withEmail.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com' });
    withoutEmail.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  it('has one alarm per kind and subject, one dashboard, one definition per saved query', () => {
    // Api5xxRate, ApiLatencyP99, AuthorizerErrors; LambdaErrors per route; LambdaThrottles per function; two per
    // table; StatusIndexWriteThrottles of the status index; ShardRecordReadFailures of listPets' re-reads;
    // KeyUseRecordFailures of the authorizer's records of use; and the release alarms: ReleaseFaults
    // and ReleaseErrors per route, ReleaseRefusals of the authorizer.
    withoutEmail.resourceCountIs(
      'AWS::CloudWatch::Alarm',
      3 + routes.length + (routes.length + 1) + 2 * tables.length + 1 + 1 + 1 + 2 * routes.length + 1,
    );
    withoutEmail.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    withoutEmail.resourceCountIs('AWS::Logs::QueryDefinition', savedQueries.length);
    expect(withoutEmail.findResources('AWS::Logs::MetricFilter')).not.toEqual({});
  });
});
