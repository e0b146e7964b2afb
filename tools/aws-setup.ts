// What is missing when a tool cannot reach AWS at all, and how to provide it, in a line: the
// SDK's own errors ("Region is missing", a CredentialsProviderError with thirty lines of stack)
// say neither. The key tool and the deploy command share it.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The shared AWS configuration files, where the SDK looks for profiles. */
export const configFiles = (): string[] => [
  process.env.AWS_CONFIG_FILE ?? join(homedir(), '.aws', 'config'),
  process.env.AWS_SHARED_CREDENTIALS_FILE ?? join(homedir(), '.aws', 'credentials'),
];

/** Whether either file has a section for `profile` (`[profile x]` in config, `[x]` in both). */
const profileDefined = (profile: string): boolean =>
  configFiles().some((file) => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return false;
    }
    return text
      .split('\n')
      .some((line) => [`[${profile}]`, `[profile ${profile}]`].includes(line.trim().replace(/\s+/g, ' ')));
  });

/** The missing piece of AWS set-up `error` shows, and how to provide it; undefined when it is something else. */
export const awsSetupProblem = (error: unknown): string | undefined => {
  const { name = 'Error', message = String(error) } = (error ?? {}) as { name?: string; message?: string };
  const profile = process.env.AWS_PROFILE;
  if (profile && (name === 'CredentialsProviderError' || /credential|profile/i.test(message))) {
    return profileDefined(profile)
      ? `AWS_PROFILE names profile "${profile}", which has no usable credentials (${message}). Run \`aws sso login --profile ${profile}\` or check it in ~/.aws/config.`
      : `AWS_PROFILE names profile "${profile}", which does not exist in ${configFiles().join(' or ')}. Set AWS_PROFILE to one that does (\`aws configure list-profiles\`).`;
  }
  if (name === 'CredentialsProviderError' || /credential/i.test(message))
    return 'no AWS credentials found. Set AWS_PROFILE (after `aws configure` or `aws sso login`), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, and AWS_REGION.';
  if (/region is missing/i.test(message))
    return 'no AWS region set. Set AWS_REGION to the region the stage is deployed in (or give your profile a region).';
  return undefined;
};
