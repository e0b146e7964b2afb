// What the monitoring of one stage reads: the stack's API, log groups, functions and
// tables, and the stage's thresholds. Types only.
import type { StageBase } from 'aws-cdk-lib/aws-apigateway';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction, IVersion } from 'aws-cdk-lib/aws-lambda';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { FunctionName } from '../../shared/api/routes.ts';
import type { DeployedStage } from '../stages.ts';
import type { AlarmDestinations } from './alarm-destinations.ts';
import type { AlarmSettings, ReleaseAlarmSettings } from './alarm-settings.ts';

export interface MonitoredFunction {
  readonly function: IFunction;
  /** The version this deploy publishes: the release alarms watch it alone. */
  readonly version: IVersion;
  /** The group the function writes to (its summary lines, errors and EMF metrics). */
  readonly logGroup: ILogGroup;
}

export interface MonitoringProps {
  readonly stage: DeployedStage;
  readonly alarms: AlarmSettings;
  /** The alarms on the new version during a deploy (release-alarms.ts). */
  readonly releaseAlarms: ReleaseAlarmSettings;
  /** Who the alarm topic notifies (alarm-destinations.ts). */
  readonly alarmDestinations: AlarmDestinations;
  /** Without any alarm destination, synth fails (true) or warns (false). */
  readonly alarmDestinationRequired: boolean;
  /** The API Gateway stage: its metrics are named by API name and stage. */
  readonly apiStage: StageBase;
  /** The API's access log: one JSON line per request (infra/access-log.ts). */
  readonly accessLogGroup: ILogGroup;
  /** Each route's function by operationId, and the authorizer. */
  readonly functions: Readonly<Record<FunctionName, MonitoredFunction>>;
  /** By the table definition's name (shared/dynamodb/tables.ts). */
  readonly tables: Readonly<Record<string, ITableV2>>;
}
