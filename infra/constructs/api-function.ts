// One function the API invokes (a route's handler or the authorizer): a bundled function
// (bundled-function.ts) whose deploys each publish a version; API Gateway invokes the `live`
// alias, which CodeDeploy moves to the new version (infra/constructs/deployment.ts).
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Alias, type ParamsAndSecretsLayerVersion, type Version } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { FUNCTION_TIMEOUT_SECONDS, type StageSettings } from '../stages.ts';
import { BundledFunction } from './bundled-function.ts';

export interface ApiFunctionProps {
  /** The entry file, relative to the repository root (shared/api/routes.ts). */
  readonly entry: string;
  readonly description: string;
  readonly settings: StageSettings;
  readonly environment: Readonly<Record<string, string>>;
  /** Concurrency only this function may use, and never more (undefined: the account's shared pool). */
  readonly reservedConcurrency?: number | undefined;
  /** The AWS Parameters and Secrets Lambda Extension's layer, for a function that reads a secret. */
  readonly paramsAndSecrets?: ParamsAndSecretsLayerVersion | undefined;
}

/** The alias every caller invokes: API Gateway, and CodeDeploy's traffic shifting. */
export const LIVE_ALIAS = 'live';

export class ApiFunction extends BundledFunction {
  /** `live`: what API Gateway invokes; a deploy moves it to the new version. */
  readonly alias: Alias;
  /** The version this deploy publishes: what the release alarms and the pre-traffic check watch. */
  readonly version: Version;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    const { entry, description, settings, environment, reservedConcurrency, paramsAndSecrets } = props;
    super(scope, id, {
      entry,
      settings,
      roleDescription: `${description} (${settings.stage})`,
      function: {
        description,
        memorySize: settings.memoryMb,
        timeout: Duration.seconds(FUNCTION_TIMEOUT_SECONDS),
        reservedConcurrentExecutions: reservedConcurrency,
        paramsAndSecrets,
        // A deploy publishes a new version and leaves the old ones: the manual rollback
        // (docs/runbook.md: Roll back) points `live` back at the previous one, which must exist.
        currentVersionOptions: { removalPolicy: RemovalPolicy.RETAIN },
        environment: {
          ...environment,
          ...(settings.enableSourceMaps && { NODE_OPTIONS: '--enable-source-maps' }),
        },
      },
      acknowledged: {
        noDeadLetterQueue:
          'API Gateway invokes every function synchronously and gets its error at once (a 5xx to the client, an ' +
          'alarm for on-call); a dead-letter queue only ever receives failed asynchronous invocations, which never happen.',
        xrayWildcard:
          'Only the two X-Ray actions that active tracing adds (xray:PutTraceSegments, xray:PutTelemetryRecords): ' +
          'X-Ray has no resource-level permissions, so "*" is the only resource they accept. Every table grant names its ARN.',
      },
    });
    // A new version whenever the code or configuration changes (currentVersion hashes both).
    this.version = this.function.currentVersion;
    this.alias = new Alias(this, 'Live', { aliasName: LIVE_ALIAS, version: this.version });
  }
}
