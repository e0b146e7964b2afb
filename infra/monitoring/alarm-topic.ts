// Where a stage's alarms go: an SNS topic, encrypted with a key of its own (CloudWatch
// cannot publish to a topic under the AWS managed SNS key) and refusing plain HTTP,
// with an optional e-mail subscription from the stage settings.
import { RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

export interface AlarmTopicProps {
  /** Names the topic and its key for people: `PetStore-staging`. */
  readonly name: string;
  readonly email?: string | undefined;
}

export class AlarmTopic extends Construct {
  readonly topic: Topic;

  constructor(scope: Construct, id: string, { name, email }: AlarmTopicProps) {
    super(scope, id);
    const key = new Key(this, 'Key', {
      description: `Encrypts the alarm notifications of ${name}`,
      enableKeyRotation: true,
      // It protects notifications in flight only: nothing kept needs it once the stack is gone.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // What CloudWatch needs to publish an alarm to a topic under this key.
    key.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );
    this.topic = new Topic(this, 'Topic', { displayName: `${name} alarms`, masterKey: key, enforceSSL: true });
    if (email) this.topic.addSubscription(new EmailSubscription(email));
  }
}
