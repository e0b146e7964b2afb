// A Lambda entry point of functions/, as deployed: bundled here with the local esbuild (no
// Docker; code splitting on), with its own log group and its own role that starts with nothing
// but writing to that log group, and active tracing. The API's functions (api-function.ts) and
// the release hooks (release-hook.ts) are both one of these; what else each may do is granted
// with `allow`.
import { AssetHashType, DockerImage, type ILocalBundling, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, type NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { type BuildOptions, buildSync } from 'esbuild';
import { REPOSITORY_ROOT } from '../repository-root.ts';
import type { StageSettings } from '../stages.ts';
import { removalPolicyOf } from './data.ts';

/**
 * The bundle is ESM; a few CommonJS dependencies still call `require` for Node's own
 * modules, which ESM lacks: this gives them one.
 */
const BUNDLING_BANNER = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

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
const LAMBDA_ALIASES: Readonly<Record<string, string>> = {
  '@aws-sdk/credential-provider-node': `./${LAMBDA_CREDENTIALS_ENTRY}`,
  'node:http': `./${LAMBDA_NODE_HTTP_ENTRY}`,
};

/**
 * How every Lambda bundle of the stack is built: `entry` into `outdir/index.mjs`, ESM for Node 24
 * (main fields module then main, the `require` banner), minified, external source maps without
 * the sources (they name the file and line of a stack frame; the code stays out of the package),
 * the SDK bundled (the version we test with, not whichever the runtime carries), LAMBDA_ALIASES.
 * Code splitting: a module the code imports dynamically is a chunk of its own beside index.mjs,
 * loaded when first needed rather than parsed at every cold start (createPet's idempotency code,
 * the SDK's event streams and user-agent parser: docs/performance.md, "Functions alone").
 */
export const lambdaBuildOptions = (entry: string, outdir: string): BuildOptions => ({
  absWorkingDir: REPOSITORY_ROOT,
  entryPoints: { index: entry },
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  platform: 'node',
  target: 'node24',
  format: 'esm',
  mainFields: ['module', 'main'],
  banner: { js: BUNDLING_BANNER },
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  alias: { ...LAMBDA_ALIASES },
  logLevel: 'warning',
});

/**
 * NodejsFunction bundles into one `--outfile`, which esbuild's code splitting cannot use (it
 * needs an outdir: https://github.com/evanw/esbuild/issues/1666), so the stack bundles itself: an
 * asset bundled locally (CDK's `local` bundling), handed to NodejsFunction as its `code`. Lambda
 * runs `index.mjs` as an ES module and loads the chunks beside it by their relative imports
 * (https://docs.aws.amazon.com/lambda/latest/dg/lambda-nodejs.html#designate-es-module);
 * test/cdk/bundles.test.ts runs each bundle that way. The entry is a field so that it is part of
 * the asset's cache key: two functions never share a bundle.
 */
class LocalEsbuild implements ILocalBundling {
  readonly entry: string;
  constructor(entry: string) {
    this.entry = entry;
  }
  tryBundle(outputDir: string): boolean {
    buildSync(lambdaBuildOptions(this.entry, outputDir));
    return true;
  }
}

const lambdaCode = (entry: string): Code =>
  Code.fromAsset(REPOSITORY_ROOT, {
    // As NodejsFunction hashes its bundles: by what was built, so that an unchanged bundle is not deployed again.
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      local: new LocalEsbuild(entry),
      // Never used: local bundling always succeeds or throws. The image the asset would need otherwise.
      image: DockerImage.fromRegistry('public.ecr.aws/sam/build-nodejs24.x'),
    },
  });

/** A statement of the role: exactly `actions` on exactly `resources`, never a wildcard action. */
interface Grant {
  readonly actions: readonly string[];
  readonly resources: readonly string[];
  readonly conditions?: Readonly<Record<string, Record<string, unknown>>> | undefined;
}

export interface BundledFunctionProps {
  /** The entry file, relative to the repository root. */
  readonly entry: string;
  readonly settings: StageSettings;
  readonly roleDescription: string;
  /** What the function is configured with beyond what every bundled function shares. */
  readonly function: Pick<
    NodejsFunctionProps,
    | 'description'
    | 'memorySize'
    | 'timeout'
    | 'environment'
    | 'reservedConcurrentExecutions'
    | 'currentVersionOptions'
    | 'paramsAndSecrets'
  >;
  /** Granted before the function exists, after the log grant (the role's statements keep this order). */
  readonly grants?: readonly Grant[];
  /** Why no dead-letter queue, and why the X-Ray wildcard: reviewed per kind of function. */
  readonly acknowledged: { readonly noDeadLetterQueue: string; readonly xrayWildcard: string };
}

export class BundledFunction extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: LogGroup;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: BundledFunctionProps) {
    const { entry, settings, roleDescription, grants = [], acknowledged } = props;
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: settings.logRetentionDays,
      removalPolicy: removalPolicyOf(settings),
    });
    // Not AWSLambdaBasicExecutionRole: that one may create any log group and write to all of them.
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: roleDescription,
    });
    this.allow(['logs:CreateLogStream', 'logs:PutLogEvents'], [this.logGroup.logGroupArn]);
    for (const { actions, resources, conditions } of grants) this.allow(actions, resources, conditions);

    this.function = new NodejsFunction(this, 'Function', {
      ...props.function,
      code: lambdaCode(entry),
      handler: 'index.handler',
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      role: this.role,
      logGroup: this.logGroup,
      // X-Ray segments for every invocation Lambda samples (shared/observability/xray.ts);
      // Lambda grants the role the two X-Ray calls.
      tracing: Tracing.ACTIVE,
    });
    Validations.of(this.function).acknowledge({ id: 'Serverless-LambdaDLQ', reason: acknowledged.noDeadLetterQueue });
    Validations.of(this.role).acknowledge({ id: 'AwsSolutions-IAM5[Resource::*]', reason: acknowledged.xrayWildcard });
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
