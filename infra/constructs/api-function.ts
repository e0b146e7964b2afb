// One Lambda entry point of functions/, as deployed: bundled here with the local esbuild
// (no Docker), with its own log group and its own role that starts with nothing but
// writing to that log group. Everything else it may do is granted with `allow`.

import { fileURLToPath } from 'node:url';
import { Duration } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { FUNCTION_TIMEOUT_SECONDS, type StageSettings } from '../stages.ts';
import { removalPolicyOf } from './data.ts';

const REPOSITORY_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The bundle is ESM; a few CommonJS dependencies still call `require` for Node's own
 * modules, which ESM lacks: this gives them one.
 */
const BUNDLING_BANNER = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/** Bundled as the SDK's default credential provider: see the file. */
export const LAMBDA_CREDENTIALS_ENTRY = 'infra/constructs/lambda-credentials.ts';

export interface ApiFunctionProps {
  /** The entry file, relative to the repository root (shared/api/routes.ts). */
  readonly entry: string;
  readonly description: string;
  readonly settings: StageSettings;
  readonly environment: Readonly<Record<string, string>>;
}

export class ApiFunction extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: LogGroup;
  readonly role: Role;

  constructor(scope: Construct, id: string, { entry, description, settings, environment }: ApiFunctionProps) {
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
      environment: {
        ...environment,
        ...(settings.enableSourceMaps && { NODE_OPTIONS: '--enable-source-maps' }),
      },
      bundling: {
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
        // Its credential chain reduced to the environment, the one place Lambda puts credentials:
        // 483 → 347 kB a bundle (docs/performance.md). Relative to projectRoot, where esbuild runs.
        esbuildArgs: { '--alias': [`@aws-sdk/credential-provider-node=./${LAMBDA_CREDENTIALS_ENTRY}`] },
        forceDockerBundling: false,
        logLevel: LogLevel.WARNING,
      },
    });
  }

  /** Allows exactly `actions` on exactly `resources`: never a wildcard action. */
  allow(actions: readonly string[], resources: readonly string[]): void {
    this.role.addToPrincipalPolicy(new PolicyStatement({ actions: [...actions], resources: [...resources] }));
  }
}
