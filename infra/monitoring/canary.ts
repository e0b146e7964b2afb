// The stage watched from outside: a CloudWatch Synthetics canary that runs the smoke suite's
// read-only checks (tools/smoke, bundled here with esbuild) against the stage's own base
// address every few minutes, with a read key of its own held in Secrets Manager, and an
// alarm on its failed runs to the stage's alarm topic (docs/runbook.md, "SmokeCanary").
import {
  AssetHashType,
  Aws,
  type CfnElement,
  CustomResourceProviderBase,
  DockerImage,
  Duration,
  RemovalPolicy,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, type IAlarmAction, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Canary, Code, Runtime, RuntimeFamily, Schedule, Test } from 'aws-cdk-lib/aws-synthetics';
import { Construct } from 'constructs';
import { buildSync } from 'esbuild';
import { removalPolicyOf } from '../constructs/data.ts';
import { REPOSITORY_ROOT } from '../repository-root.ts';
import { canaryKeySecretName, type DeployedStage, type StageSettings, stackName } from '../stages.ts';
import { CANARY_ENV, type CanarySettings } from './watch-settings.ts';

const CANARY_ENTRY = 'tools/smoke/canary.ts';

/**
 * syn-nodejs-4.1: Synthetics' runtime without a browser (Node.js 22). The checks are HTTP
 * calls made with fetch: a Puppeteer or Playwright runtime would start Chromium on every run
 * for nothing (slower runs, billed by the run and its Lambda time, and a browser's patches to
 * follow). Newer than aws-cdk-lib's constants, hence by name; Synthetics picks the architecture.
 */
const CANARY_RUNTIME = new Runtime('syn-nodejs-4.1', RuntimeFamily.NODEJS);
/** The Node.js the runtime runs: the bundle's target, so that it uses nothing the runtime lacks. */
const CANARY_NODE_TARGET = 'node22';

/**
 * Synthetics names a canary's function cwsyn-<canary name>-<canary id> (the id is the canary's
 * own, a UUID: aws/aws-cdk#23718; Synthetics' troubleshooting page shows the EngineArn), and
 * Lambda logs it to /aws/lambda/<function name>. The role may write to the log groups of the
 * Pet Store's canaries only (one name for both stages, so that the reviewed acknowledgement
 * below is the same in both); the stack makes the one it uses (below).
 */
const CANARY_NAME_PREFIX = 'petstore-';

export interface SmokeCanaryProps {
  readonly stage: DeployedStage;
  readonly settings: CanarySettings;
  /** The stage's log retention and removal policy: the canary's log group and bucket follow them. */
  readonly storage: Pick<StageSettings, 'logRetentionDays' | 'removalPolicy'>;
  /** The stage's base address, ending in /v1. */
  readonly baseUrl: string;
  /** The stage's alarm topic (and any existing topic it names). */
  readonly alarmActions: readonly IAlarmAction[];
  /** For INSUFFICIENT_DATA (the runs stopped): the stage's topic alone, whose subscriptions filter. */
  readonly noDataActions: readonly IAlarmAction[];
}

/**
 * CDK's auto-delete handler (one per stack) reads a bucket's tags before it empties it, on a grant
 * the bucket's policy gives its role. Production's second deploy turns retention on: the update
 * rewrites that policy without the grant, and the cleanup after it deletes the handler's custom
 * resource, whose read is then refused and its delete reported failed (aws/aws-cdk#37257). The
 * role keeps the read in its own policy (inside the stage's boundary), which the update leaves as
 * it was: the handler finds the tag gone and leaves the bucket's runs alone.
 */
const keepTagsReadable = (bucket: Bucket): void => {
  const provider = Stack.of(bucket).node.tryFindChild(`${AUTO_DELETE_RESOURCE_TYPE}CustomResourceProvider`);
  if (!(provider instanceof CustomResourceProviderBase))
    throw new Error(`${bucket.node.path}: no ${AUTO_DELETE_RESOURCE_TYPE} provider found to grant s3:GetBucketTagging`);
  provider.addToRolePolicy({ Effect: 'Allow', Action: 's3:GetBucketTagging', Resource: bucket.bucketArn });
};
/** CDK's custom resource type for a bucket's autoDeleteObjects (aws-cdk-lib/aws-s3, BucketAutoDeleteObjects). */
const AUTO_DELETE_RESOURCE_TYPE = 'Custom::S3AutoDeleteObjects';

export class SmokeCanary extends Construct {
  readonly canary: Canary;
  /** Holds the canary's read key, which the stack mints (docs/deploying.md, "The canary's key"). */
  readonly keySecret: Secret;
  readonly alarm: Alarm;

  readonly logGroup: LogGroup;

  constructor(
    scope: Construct,
    id: string,
    { stage, settings, storage, baseUrl, alarmActions, noDataActions }: SmokeCanaryProps,
  ) {
    super(scope, id);
    const name = stackName(stage);
    this.keySecret = new Secret(this, 'KeySecret', {
      secretName: canaryKeySecretName(stage),
      description: `The read key the smoke canary of ${name} calls the API with: minted by the stack (infra/constructs/read-key.ts)`,
      // A placeholder until the stack's read key replaces it, before the canary is created.
      generateSecretString: { passwordLength: 32, excludePunctuation: true },
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(this.keySecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        "The secret holds an API key the stack mints (infra/constructs/read-key.ts), not a credential Secrets Manager can rotate by itself: it is replaced by raising the stage's readKeyGeneration (docs/deploying.md).",
    });

    const artifacts = new Bucket(this, 'Artifacts', {
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      // A run's report and logs: on-call reads the latest failures, nothing is kept for long.
      lifecycleRules: [{ expiration: Duration.days(14) }],
      // As the stage's other data: production keeps it when the stack goes (it empties itself
      // within 14 days); staging and a first deploy leave nothing behind, which needs the
      // bucket emptied first (CloudFormation cannot delete a bucket with objects in it).
      removalPolicy: removalPolicyOf(storage),
      autoDeleteObjects: storage.removalPolicy === 'destroy',
    });
    if (storage.removalPolicy === 'destroy') keepTagsReadable(artifacts);
    Validations.of(artifacts).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Only the canary writes here (its own run reports, kept 14 days); an access log of that bucket would only log the canary itself, which CloudTrail already records.',
    });

    // At most 21 characters, lower case: one per stage and account.
    const canaryName = `${CANARY_NAME_PREFIX}${stage}`;
    const role = this.#role(canaryName, artifacts);
    this.canary = new Canary(this, 'Canary', {
      canaryName,
      role,
      runtime: CANARY_RUNTIME,
      test: Test.custom({
        code: this.#code(),
        handler: 'index.handler',
      }),
      schedule: Schedule.rate(Duration.minutes(settings.everyMinutes)),
      timeout: Duration.minutes(1),
      environmentVariables: { [CANARY_ENV.baseUrl]: baseUrl, [CANARY_ENV.keySecretArn]: this.keySecret.secretArn },
      artifactsBucketLocation: { bucket: artifacts, prefix: 'runs' },
      successRetentionPeriod: Duration.days(2),
      failureRetentionPeriod: Duration.days(14),
      provisionedResourceCleanup: true,
    });
    // Where the bucket empties itself on a stack's delete (a teardown, a failed create's rollback),
    // the canary goes first: deletes run in the reverse order of dependencies, and a run between
    // the emptying and the canary's delete would leave an object the bucket's delete fails on.
    const emptying = artifacts.node.tryFindChild('AutoDeleteObjectsCustomResource');
    if (emptying) this.canary.node.addDependency(emptying);
    this.keySecret.grantRead(role);
    // The first run reads the secret: the role's policies exist before the canary starts.
    this.canary.node.addDependency(role);
    // Made here, with retention, rather than by the canary's first run (no retention, and kept
    // after the stack). Its name holds the canary's id, known once the canary exists: the role
    // may not create log groups, so no run can make it first (which would fail this create).
    this.logGroup = new LogGroup(this, 'Logs', {
      logGroupName: `/aws/lambda/cwsyn-${canaryName}-${this.canary.canaryId}`,
      retention: storage.logRetentionDays,
      removalPolicy: removalPolicyOf(storage),
    });

    // No data is no verdict (missing), not a breach: a new alarm sees no run yet, and "breaching"
    // put it in ALARM (and paged) before the canary's first run. With "missing" it stays
    // INSUFFICIENT_DATA until the first run, then OK (alarm-topic.ts keeps that creation-time
    // transition from the subscriptions); a canary that stops running takes it from OK to
    // INSUFFICIENT_DATA once a whole evaluation range has no run, which notifies the stage's
    // subscriptions (its INSUFFICIENT_DATA action), as failed runs notify everyone (ALARM).
    this.alarm = new Alarm(this, 'FailedRuns', {
      alarmName: `${name}-SmokeCanary`,
      alarmDescription: `The smoke canary's read-only checks failed ${settings.failedRunsToAlarm} runs in a row (ALARM), or it stopped running (INSUFFICIENT_DATA, notified too): the stage breaks a rule clients rely on, from outside, or nothing watches it. Runbook: docs/runbook.md, section SmokeCanary.`,
      metric: this.canary.metricSuccessPercent({
        period: Duration.minutes(settings.everyMinutes),
        statistic: 'Minimum',
      }),
      threshold: 100,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: settings.failedRunsToAlarm,
      datapointsToAlarm: settings.failedRunsToAlarm,
      treatMissingData: TreatMissingData.MISSING,
    });
    this.alarm.addAlarmAction(...alarmActions);
    this.alarm.addOkAction(...alarmActions);
    // The stage's topic alone: its subscriptions drop the state a new alarm starts in (alarm-topic.ts);
    // an existing topic named as a destination would not.
    this.alarm.addInsufficientDataAction(...noDataActions);
  }

  /** tools/smoke/canary.ts bundled, or a stand-in when this synth skips bundling (`cdk synth --exclusively` another stack, tests). */
  #code(): Code {
    if (!Stack.of(this).bundlingRequired)
      return Code.fromInline('exports.handler = async () => { throw new Error("not bundled"); };');
    return Code.fromAsset(REPOSITORY_ROOT, {
      // The bundle's content names the asset: a change to any file it includes makes a new one.
      assetHashType: AssetHashType.OUTPUT,
      bundling: {
        // Never used: esbuild bundles locally, as for the functions (no Docker).
        image: DockerImage.fromRegistry('esbuild-runs-locally'),
        local: {
          tryBundle: (outputDir) => {
            buildSync({
              entryPoints: [`${REPOSITORY_ROOT}${CANARY_ENTRY}`],
              // Where Synthetics' Node.js runtimes load the handler's file from (docs: "Packaging your
              // Node.js canary files"; elsewhere: "Cannot find module '/opt/nodejs/node_modules/index'").
              outfile: `${outputDir}/nodejs/node_modules/index.js`,
              bundle: true,
              platform: 'node',
              format: 'cjs',
              target: CANARY_NODE_TARGET,
              logLevel: 'error',
            });
            return true;
          },
        },
      },
    });
  }

  /** What a canary needs (docs: "Required roles and permissions for canaries"), and nothing more. */
  #role(canaryName: string, artifacts: Bucket): Role {
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `The smoke canary ${canaryName}: writes its run reports, logs and metrics, reads its key`,
      inlinePolicies: {
        canary: new PolicyDocument({
          statements: [
            // Put and Get on its results path: AWS's documented minimum for a canary's role
            // (CloudWatch User Guide, "Required roles and permissions for canaries").
            new PolicyStatement({
              actions: ['s3:PutObject', 's3:GetObject'],
              resources: [artifacts.arnForObjects('runs/*')],
            }),
            new PolicyStatement({ actions: ['s3:GetBucketLocation'], resources: [artifacts.bucketArn] }),
            new PolicyStatement({ actions: ['s3:ListAllMyBuckets'], resources: ['*'] }),
            new PolicyStatement({
              actions: ['cloudwatch:PutMetricData'],
              resources: ['*'],
              conditions: { StringEquals: { 'cloudwatch:namespace': 'CloudWatchSynthetics' } },
            }),
            new PolicyStatement({
              // Not logs:CreateLogGroup: the stack makes the canary's log group (above).
              actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
              resources: [
                `arn:${Aws.PARTITION}:logs:${Aws.REGION}:${Aws.ACCOUNT_ID}:log-group:/aws/lambda/cwsyn-${CANARY_NAME_PREFIX}*`,
              ],
            }),
          ],
        }),
      },
    });
    const bucketId = Stack.of(this).getLogicalId(artifacts.node.defaultChild as CfnElement);
    const acknowledged: [string, string][] = [
      [
        'AwsSolutions-IAM5[Resource::*]',
        's3:ListAllMyBuckets (the Synthetics runtime checks its artifact bucket with it) and cloudwatch:PutMetricData (limited to the CloudWatchSynthetics namespace by a condition) have no resource-level permissions.',
      ],
      [
        `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/runs/*]`,
        "Each run writes its report, its log and its result under a new key of the canary's own bucket, and only under runs/: the bucket holds nothing else.",
      ],
      [
        `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:/aws/lambda/cwsyn-${CANARY_NAME_PREFIX}*]`,
        "Synthetics names the canary's function and log group cwsyn-<canary name>-<random id>: the id is not known before the canary exists, so the role may write to the Pet Store canaries' log groups, no other.",
      ],
      [
        'Serverless-LambdaStarPermissions',
        "The canary role's three wildcards are the ones acknowledged above, each reviewed: no action is a wildcard, and nothing reaches the stage's tables or keys.",
      ],
    ];
    for (const [id, reason] of acknowledged) Validations.of(role).acknowledge({ id, reason });
    return role;
  }
}
