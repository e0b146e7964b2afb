// Where a stage's alarms go: an SNS topic, encrypted with a key of its own (CloudWatch
// cannot publish to a topic under the AWS managed SNS key) and refusing plain HTTP, with
// the stage's destinations (alarm-destinations.ts) subscribed or added as alarm actions.
import { Annotations, ArnFormat, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { IAlarmAction } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { type CfnSubscription, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription, UrlSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { DEPLOYED_STAGES, type DeployedStage, stackName } from '../stages.ts';
import {
  type AlarmDestinations,
  alarmDestinationsContextKey,
  alarmDestinationsEnvVar,
  hasAlarmDestination,
} from './alarm-destinations.ts';

/**
 * What the stage's subscriptions receive of CloudWatch's alarm messages (JSON bodies with
 * `OldStateValue` and `NewStateValue`): every entry into ALARM, and every way out of ALARM or OK.
 * Left out: the transitions out of INSUFFICIENT_DATA into OK, which is what each new alarm makes
 * first ("When this operation creates an alarm, the alarm state is immediately set to
 * INSUFFICIENT_DATA. The alarm is then evaluated ... Any actions associated with the new state are
 * then executed", PutMetricAlarm): without it, a first deploy would send one OK notification per
 * alarm. An alarm leaving ALARM (its recovery) and a running canary going silent (OK to
 * INSUFFICIENT_DATA, canary.ts) still arrive. CDK's typed filters have no "$or"; the policy is
 * set on the subscription as SNS takes it (scope MessageBody).
 */
const ALARM_NOTIFICATION_FILTER = {
  $or: [{ NewStateValue: ['ALARM'] }, { OldStateValue: ['ALARM', 'OK'] }],
} as const;

export interface AlarmTopicProps {
  readonly stage: DeployedStage;
  readonly destinations: AlarmDestinations;
  /** With no destination at all, synth fails (true: production) or warns (false). */
  readonly destinationRequired: boolean;
}

export class AlarmTopic extends Construct {
  readonly topic: Topic;
  /** What every alarm does on ALARM and on OK: this topic, plus each existing topic named as a destination. */
  readonly actions: readonly IAlarmAction[];
  /**
   * The topic alone, whose subscriptions filter (ALARM_NOTIFICATION_FILTER): for the actions of
   * a state a new alarm may start in (INSUFFICIENT_DATA), which the existing topics named as
   * destinations would receive unfiltered.
   */
  readonly filteredActions: readonly IAlarmAction[];

  constructor(scope: Construct, id: string, { stage, destinations, destinationRequired }: AlarmTopicProps) {
    super(scope, id);
    // Names the topic and its key for people, and starts every alarm's name (alarms.ts).
    const name = stackName(stage);
    const key = new Key(this, 'Key', {
      description: `Encrypts the alarm notifications of ${name}`,
      enableKeyRotation: true,
      // It protects notifications in flight only: nothing kept needs it once the stack is gone.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // What CloudWatch needs to publish an alarm to a topic under this key.
    // Only on behalf of this account's alarms whose names start with the stack's name: the
    // confused-deputy guard, on the key as on the topic (below).
    const stack = Stack.of(this);
    const ofThisStack = {
      ArnLike: {
        'aws:SourceArn': stack.formatArn({
          service: 'cloudwatch',
          resource: 'alarm',
          resourceName: `${name}-*`,
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      },
      StringEquals: { 'aws:SourceAccount': stack.account },
    };
    key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsOfThisStack',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: ofThisStack,
      }),
    );
    this.topic = new Topic(this, 'Topic', { displayName: `${name} alarms`, masterKey: key, enforceSSL: true });

    // enforceSSL gives the topic a policy of its own, which replaces SNS's default one (the
    // owner account may publish): without this statement CloudWatch would be refused. Only
    // CloudWatch, only for this account's alarms whose names start with the stack's name.
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsOfThisStack',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: ofThisStack,
      }),
    );

    const subscriptions = [
      ...destinations.emails.map((email) => this.topic.addSubscription(new EmailSubscription(email))),
      ...destinations.urls.map((url) => this.topic.addSubscription(new UrlSubscription(url))),
    ];
    for (const subscription of subscriptions) {
      const resource = subscription.node.defaultChild as CfnSubscription;
      resource.filterPolicyScope = 'MessageBody';
      resource.filterPolicy = ALARM_NOTIFICATION_FILTER;
    }
    if (destinations.emails.length + destinations.urls.length > 0) {
      Validations.of(this.topic).acknowledge({
        id: 'Serverless-SNSRedrivePolicy',
        reason:
          'The subscriptions deliver alarm notifications to people (e-mail, pager or chat webhooks). A message SNS ' +
          'cannot deliver after its retries would land in a queue nobody reads; the alarm itself stays in ALARM in ' +
          'CloudWatch and on the dashboard, which is where on-call looks when a page is missed.',
      });
    }
    this.filteredActions = [new SnsAction(this.topic)];
    this.actions = [
      ...this.filteredActions,
      ...destinations.topicArns.map(
        (arn, index) => new SnsAction(Topic.fromTopicArn(this, `Destination${index}`, arn)),
      ),
    ];

    if (!hasAlarmDestination(destinations)) {
      const message =
        `${name}'s alarms reach NOBODY: no alarm destination is set. Set CDK context ` +
        `"${alarmDestinationsContextKey(stage)}" (e-mail addresses, https:// endpoints or SNS topic ARNs, ` +
        `comma-separated) or the environment variable ${alarmDestinationsEnvVar(stage)}; docs/deploying.md: Where alarms go.`;
      // An error fails `cdk synth` and `cdk deploy`: a deploy without destinations would also
      // remove the subscriptions a previous deploy made. Only when this stack is synthesized for
      // deploying (`cdk deploy -e PetStore-staging` does not synthesize production's assets, and
      // needs none of its destinations). On the app, not the stack: the CLI fails on every stack's
      // error but prints only the violations under the stacks it selected, and one with the app's
      // empty path under all of them, so `cdk synth PetStore-staging` says why it failed and a
      // bare `cdk synth` says it once.
      if (destinationRequired && stack.bundlingRequired)
        Annotations.of(stack.node.root).addError(
          // A bare `npx cdk synth` synthesizes every stage: say how to look at one without this one.
          `${message} To synthesize another stage alone: npx cdk synth -e ${stackName(DEPLOYED_STAGES.find((s) => s !== stage)!)}.`,
        );
      else Annotations.of(stack).addWarningV2('petstore:alarm-destinations', message);
    }
  }
}
