// Where a stage's alarms go, set per deploy without editing code (README: Deploying): CDK
// context `alarmDestinations:<stage>` or, when that is unset, the environment variable
// PETSTORE_ALARM_DESTINATIONS_<STAGE>. The value is a comma-separated list whose entries
// are e-mail addresses (an e-mail subscription each), https:// URLs (an HTTPS subscription:
// PagerDuty, Opsgenie and chat webhooks take SNS messages that way) and SNS topic ARNs (an
// existing topic, such as the one AWS Chatbot or the on-call pager already reads: every
// alarm also notifies it). No CDK import: parsing is tested on its own.

export interface AlarmDestinations {
  readonly emails: readonly string[];
  readonly urls: readonly string[];
  readonly topicArns: readonly string[];
}

export const NO_ALARM_DESTINATIONS: AlarmDestinations = { emails: [], urls: [], topicArns: [] };

export const alarmDestinationsContextKey = (stage: string): string => `alarmDestinations:${stage}`;
export const alarmDestinationsEnvVar = (stage: string): string => `PETSTORE_ALARM_DESTINATIONS_${stage.toUpperCase()}`;

const EMAIL = /^[^@\s,]+@[^@\s,]+\.[^@\s,]+$/;
const TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/;

/** Throws on an entry that is none of the three kinds: a typo must fail the synth, not silence the alarms. */
export const parseAlarmDestinations = (value: string | undefined): AlarmDestinations => {
  const entries = (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const emails: string[] = [];
  const urls: string[] = [];
  const topicArns: string[] = [];
  for (const entry of new Set(entries)) {
    if (TOPIC_ARN.test(entry)) topicArns.push(entry);
    else if (URL.canParse(entry) && new URL(entry).protocol === 'https:') urls.push(entry);
    else if (EMAIL.test(entry)) emails.push(entry);
    else throw new Error(`alarm destination "${entry}" is not an e-mail address, an https:// URL or an SNS topic ARN`);
  }
  return { emails, urls, topicArns };
};

export const hasAlarmDestination = ({ emails, urls, topicArns }: AlarmDestinations): boolean =>
  emails.length + urls.length + topicArns.length > 0;

/** The stage's destinations: context first (`cdk deploy -c alarmDestinations:production=…`), then the environment. */
export const alarmDestinationsFor = (
  stage: string,
  context: (key: string) => unknown,
  env: NodeJS.ProcessEnv = process.env,
): AlarmDestinations => {
  const fromContext = context(alarmDestinationsContextKey(stage));
  // `-c key=value` gives a string; cdk.json may hold a list.
  const value = Array.isArray(fromContext)
    ? fromContext.join(',')
    : typeof fromContext === 'string'
      ? fromContext
      : env[alarmDestinationsEnvVar(stage)];
  return parseAlarmDestinations(value);
};
