// One Lambda entry point of functions/, as deployed: bundled here with the local esbuild
// (no Docker), with its own log group and its own role that starts with nothing but
// writing to that log group. Everything else it may do is granted with `allow`. Each
// deploy publishes a version; API Gateway invokes the `live` alias, which CodeDeploy
// moves to the new version (infra/constructs/deployment.ts).

import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  Alias,
  Architecture,
  type ParamsAndSecretsLayerVersion,
  Runtime,
  Tracing,
  type Version,
} from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { FUNCTION_TIMEOUT_SECONDS, type StageSettings } from '../stages.ts';
import { removalPolicyOf } from './data.ts';

const REPOSITORY_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The bundle is ESM; a few CommonJS dependencies still call `require` for Node's own
 * modules, which ESM lacks: this gives them one.
 */
export const BUNDLING_BANNER =
  "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/** Bundled as the SDK's default credential provider: see the file. */
const LAMBDA_CREDENTIALS_ENTRY = 'infra/constructs/lambda-credentials.ts';
/** Bundled as `node:http` imported as an ES module, whose facade loads undici: see the file. */
const LAMBDA_NODE_HTTP_ENTRY = 'infra/constructs/lambda-node-http.ts';
/**
 * esbuild aliases of the Lambda bundles, relative to projectRoot, where esbuild runs: the SDK's
 * credential chain reduced to the environment, the one place Lambda puts credentials (bundle
 * size and import), and node:http as an ES module, Node's own module without the facade that
 * loads undici (import). What each saves: docs/performance.md, "Functions alone".
 */
export const LAMBDA_ALIASES: Readonly<Record<string, string>> = {
  '@aws-sdk/credential-provider-node': `./${LAMBDA_CREDENTIALS_ENTRY}`,
  'node:http': `./${LAMBDA_NODE_HTTP_ENTRY}`,
};

/** How every Lambda bundle of the stack is built: the route functions, the authorizer, the release hooks. */
export const lambdaBundling = (): BundlingOptions => ({
  format: OutputFormat.ESM,
  mainFields: ['module', 'main'],
  banner: BUNDLING_BANNER,
  minify: true,
  // Maps name the source file and line of a stack frame; the sources themselves stay out
  // of the package, which keeps it small and the code out of the map.
  sourceMap: true,
  sourcesContent: false,
  // The SDK version we test with, not whichever the runtime happens to carry.
  bundleAwsSDK: true,
  // Its credential chain reduced to the environment, node:http's facade left out (LAMBDA_ALIASES).
  esbuildArgs: { '--alias': Object.entries(LAMBDA_ALIASES).map(([from, to]) => `${from}=${to}`) },
  forceDockerBundling: false,
  logLevel: LogLevel.WARNING,
});

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

export class ApiFunction extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: LogGroup;
  readonly role: Role;
  /** `live`: what API Gateway invokes; a deploy moves it to the new version. */
  readonly alias: Alias;
  /** The version this deploy publishes: what the release alarms and the pre-traffic check watch. */
  readonly version: Version;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    const { entry, description, settings, environment, reservedConcurrency, paramsAndSecrets } = props;
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: settings.logRetentionDays,
      removalPolicy: removalPolicyOf(settings),
    });
    // Not AWSLambdaBasicExecutionRole: that one may create any log group and write to all of them.
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `${description} (${settings.stage})`,
    });
    this.allow(['logs:CreateLogStream', 'logs:PutLogEvents'], [this.logGroup.logGroupArn]);

    this.function = new NodejsFunction(this, 'Function', {
      entry: `${REPOSITORY_ROOT}${entry}`,
      handler: 'handler',
      projectRoot: REPOSITORY_ROOT,
      depsLockFilePath: `${REPOSITORY_ROOT}package-lock.json`,
      description,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: settings.memoryMb,
      timeout: Duration.seconds(FUNCTION_TIMEOUT_SECONDS),
      role: this.role,
      logGroup: this.logGroup,
      reservedConcurrentExecutions: reservedConcurrency,
      paramsAndSecrets,
      // X-Ray segments for every invocation Lambda samples, with the handler's subsegment and
      // each DynamoDB call's inside when the stage traces functions (shared/observability/xray.ts);
      // Lambda grants the role the two X-Ray calls.
      tracing: Tracing.ACTIVE,
      // A deploy publishes a new version and leaves the old ones: the manual rollback
      // (docs/runbook.md: Roll back) points `live` back at the previous one, which must exist.
      currentVersionOptions: { removalPolicy: RemovalPolicy.RETAIN },
      environment: {
        ...environment,
        ...(settings.enableSourceMaps && { NODE_OPTIONS: '--enable-source-maps' }),
      },
      bundling: lambdaBundling(),
    });
    Validations.of(this.function).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason:
        'API Gateway invokes every function synchronously and gets its error at once (a 5xx to the client, an ' +
        'alarm for on-call); a dead-letter queue only ever receives failed asynchronous invocations, which never happen.',
    });
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Only the two X-Ray actions that active tracing adds (xray:PutTraceSegments, xray:PutTelemetryRecords): ' +
        'X-Ray has no resource-level permissions, so "*" is the only resource they accept. Every table grant names its ARN.',
    });

    // A new version whenever the code or configuration changes (currentVersion hashes both).
    this.version = this.function.currentVersion;
    this.alias = new Alias(this, 'Live', { aliasName: LIVE_ALIAS, version: this.version });
  }

  /** Allows exactly `actions` on exactly `resources`: never a wildcard action. */
  allow(
    actions: readonly string[],
    resources: readonly string[],
    conditions?: Readonly<Record<string, Record<string, unknown>>>,
  ): void {
    this.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: [...actions], resources: [...resources], ...(conditions && { conditions }) }),
    );
  }
}
