// Alarms reach a person: the destinations of each stage come from CDK context or the
// environment (never from code), become subscriptions or extra alarm actions, and a
// production synth without any destination fails (staging's warns). Built without bundling: only the
// monitoring is under test here (deploy.test.ts checks the topic policy of the real synth).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, cloud_assembly_schema, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as cxapi from 'aws-cdk-lib/cx-api';
import { afterAll, describe, expect, test } from 'vitest';
import { createPetStoreApp } from '../../infra/app.ts';
import {
  alarmDestinationsContextKey,
  alarmDestinationsEnvVar,
  alarmDestinationsFor,
  NO_ALARM_DESTINATIONS,
  parseAlarmDestinations,
} from '../../infra/monitoring/alarm-destinations.ts';
import { AlarmTopic } from '../../infra/monitoring/alarm-topic.ts';
import type { PetStoreStack } from '../../infra/pet-store-stack.ts';

const PAGER_TOPIC = 'arn:aws:sns:eu-west-1:111122223333:pager';
const WARNING = 'petstore:alarm-destinations';

describe('parseAlarmDestinations', () => {
  test('sorts e-mail addresses, https endpoints and topic ARNs; trims, drops blanks and repeats', () => {
    expect(
      parseAlarmDestinations(` oncall@example.com, https://events.pagerduty.com/x ,,${PAGER_TOPIC},oncall@example.com`),
    ).toEqual({ emails: ['oncall@example.com'], urls: ['https://events.pagerduty.com/x'], topicArns: [PAGER_TOPIC] });
    expect(parseAlarmDestinations(undefined)).toEqual({ emails: [], urls: [], topicArns: [] });
  });

  test.each(['oncall', 'http://plain.example.com/hook', 'arn:aws:sqs:eu-west-1:111122223333:queue', 'a@b'])(
    'refuses %s: a typo must fail the synth, not silence the alarms',
    (entry) => {
      expect(() => parseAlarmDestinations(entry)).toThrow(/is not an e-mail address/);
    },
  );

  test('takes CDK context (a string or a list) before the environment variable', () => {
    const env = { [alarmDestinationsEnvVar('production')]: 'env@example.com' };
    const context = (value: unknown) => (key: string) =>
      key === alarmDestinationsContextKey('production') ? value : undefined;
    expect(alarmDestinationsFor('production', context(undefined), env).emails).toEqual(['env@example.com']);
    expect(alarmDestinationsFor('production', context('ctx@example.com'), env).emails).toEqual(['ctx@example.com']);
    expect(alarmDestinationsFor('production', context(['a@example.com', PAGER_TOPIC]), env)).toEqual({
      emails: ['a@example.com'],
      urls: [],
      topicArns: [PAGER_TOPIC],
    });
    expect(alarmDestinationsFor('staging', context('ctx@example.com'), env).emails).toEqual([]);
  });
});

const outdirs: string[] = [];
afterAll(() => {
  for (const dir of outdirs) rmSync(dir, { recursive: true, force: true });
});

/** Both stacks, synthesized without bundling, with `context` added to the app's. */
const build = (context: Record<string, string>): Record<string, PetStoreStack> => {
  const outdir = mkdtempSync(join(tmpdir(), 'petstore-alarms-'));
  outdirs.push(outdir);
  const saved = process.env[alarmDestinationsEnvVar('production')];
  delete process.env[alarmDestinationsEnvVar('production')];
  try {
    const { stacks } = createPetStoreApp(
      new App({
        outdir,
        context: { ...context, [cxapi.BUNDLING_STACKS]: [], [cxapi.FAIL_SYNTH_ON_VALIDATION_ERRORS_CONTEXT]: false },
        stackTraces: false,
      }),
    );
    return Object.fromEntries(stacks.map((stack) => [stack.settings.stage, stack]));
  } finally {
    if (saved !== undefined) process.env[alarmDestinationsEnvVar('production')] = saved;
  }
};

describe('a deploy with destinations', () => {
  const stacks = build({
    [alarmDestinationsContextKey('production')]: `oncall@example.com,https://hooks.example.com/alarms,${PAGER_TOPIC}`,
  });
  const production = () => Template.fromStack(stacks.production!);

  test('subscribes the e-mail address and the https endpoint to the alarm topic', () => {
    production().resourceCountIs('AWS::SNS::Subscription', 2);
    production().hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com' });
    production().hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'https',
      Endpoint: 'https://hooks.example.com/alarms',
    });
    // The first test synthesizes the app (no bundling, cdk-nag included): a loaded machine needs more than 30 s.
  }, 180_000);

  // A new alarm runs the actions of its first state, which comes from INSUFFICIENT_DATA ("When this
  // operation creates an alarm, the alarm state is immediately set to INSUFFICIENT_DATA. The alarm
  // is then evaluated and its state is set appropriately. Any actions associated with the new
  // state are then executed":
  // https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_PutMetricAlarm.html):
  // every alarm with an OK action would notify on the first deploy. CloudWatch's message is JSON
  // with OldStateValue and NewStateValue
  // (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/AlarmThatSendsEmail.html), which
  // SNS filters when the scope is MessageBody; "$or" takes any one of its policies
  // (https://docs.aws.amazon.com/sns/latest/dg/and-or-logic.html). Written here from those pages:
  // into ALARM from anywhere; out of ALARM (recovery) and out of OK (a canary that stopped);
  // nothing out of INSUFFICIENT_DATA except into ALARM.
  test('each subscription drops the INSUFFICIENT_DATA -> OK a new alarm starts with, and keeps ALARM and recovery', () => {
    const subscriptions = Object.values(production().findResources('AWS::SNS::Subscription'));
    expect(subscriptions).toHaveLength(2);
    for (const { Properties } of subscriptions) {
      expect(Properties.FilterPolicyScope).toBe('MessageBody');
      expect(Properties.FilterPolicy).toEqual({
        $or: [{ NewStateValue: ['ALARM'] }, { OldStateValue: ['ALARM', 'OK'] }],
      });
    }
  });

  test('every alarm notifies the existing topic too, on alarm and on recovery', () => {
    // The SLO alerts notify through composite alarms; their windows' alarms notify nobody (infra/monitoring/slo.ts).
    const alarms = Object.fromEntries(
      Object.entries({
        ...production().findResources('AWS::CloudWatch::Alarm'),
        ...production().findResources('AWS::CloudWatch::CompositeAlarm'),
      }).filter(([id, alarm]) => alarm.Type === 'AWS::CloudWatch::CompositeAlarm' || !id.startsWith('WatchSlo')),
    );
    expect(Object.keys(alarms).length).toBeGreaterThan(0);
    for (const [id, alarm] of Object.entries(alarms)) {
      expect(alarm.Properties.AlarmActions, id).toHaveLength(2);
      expect(alarm.Properties.AlarmActions, id).toContain(PAGER_TOPIC);
      expect(alarm.Properties.OKActions, id).toContain(PAGER_TOPIC);
    }
  });

  test('production has no error; staging, which has none, only warns', () => {
    Annotations.fromStack(stacks.production!).hasNoError('*', Match.stringLikeRegexp('reach NOBODY'));
    Annotations.fromStack(stacks.production!).hasNoWarning('*', Match.stringLikeRegexp('reach NOBODY'));
    Annotations.fromStack(stacks.staging!).hasWarning(
      '/PetStore-staging',
      Match.stringLikeRegexp(`reach NOBODY.*${alarmDestinationsContextKey('staging')}.*\\[ack: ${WARNING}\\]`),
    );
    Template.fromStack(stacks.staging!).resourceCountIs('AWS::SNS::Subscription', 0);
  });
});

describe('without any destination', () => {
  /** The alarm topic alone, in a stack that is (or is not) among those synthesized for deploying. */
  const topic = (destinationRequired: boolean, selected: boolean) => {
    const app = new App({ context: selected ? {} : { [cxapi.BUNDLING_STACKS]: [] } });
    const stack = new Stack(app, 'PetStore-production', { env: { account: '123456789012', region: 'eu-west-1' } });
    new AlarmTopic(stack, 'AlarmTopic', {
      stage: 'production',
      destinations: NO_ALARM_DESTINATIONS,
      destinationRequired,
    });
    return Object.assign(Annotations.fromStack(stack), {
      /** The app's own errors: where the error goes, so that the CLI shows it whatever stacks it selected. */
      appErrors: () =>
        app.node.metadata
          .filter((entry) => entry.type === cloud_assembly_schema.ArtifactMetadataEntryType.ERROR)
          .map((entry) => String(entry.data)),
    });
  };
  const NOBODY = `reach NOBODY.*${alarmDestinationsContextKey('production')}.*${alarmDestinationsEnvVar('production')}`;
  const nobody = Match.stringLikeRegexp(NOBODY);

  test('production is an error, which fails cdk synth and cdk deploy', () => {
    const annotations = topic(true, true);
    expect(annotations.appErrors()).toEqual([expect.stringMatching(NOBODY)]);
    // Once: not also on the stack, which the CLI would print a second time when it selects it.
    annotations.hasNoError('*', Match.anyValue());
  });

  test('production not being deployed (cdk deploy -e PetStore-staging) only warns', () => {
    topic(true, false).hasNoError('*', nobody);
    expect(topic(true, false).appErrors()).toEqual([]);
    topic(true, false).hasWarning('/PetStore-production', nobody);
  });

  test('staging only warns', () => {
    topic(false, true).hasNoError('*', nobody);
    topic(false, true).hasWarning('/PetStore-production', nobody);
  });
});
