// What a developer's own tools need to reach the embedded DynamoDB over TCP (README, "Looking
// into the local store"): an AWS config file in the data directory, 0600, with one profile that
// names the port and carries this start's credential, its session token included, which the AWS
// CLI and the SDKs read (`AWS_CONFIG_FILE`, `AWS_PROFILE`; `endpoint_url` is the AWS CLI's and the
// SDKs' setting for a service's endpoint: https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html).
// Written at every start, removed at the stop: it is only good for as long as the server runs.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOCAL_ACCESS_KEY_ID, parseConnection } from './dynamodb-credential.ts';

const TOOL_PROFILE_FILE = 'aws-config';
const TOOL_PROFILE = 'petstore-local';

/** Writes the profile for the store at `url` (its TCP address with its credential). */
export const writeToolProfile = (dataDir: string, url: string): void => {
  const { endpoint, secretAccessKey, sessionToken } = parseConnection(url);
  const file = join(dataDir, TOOL_PROFILE_FILE);
  rmSync(file, { force: true }); // `mode` applies only to a file writeFileSync creates
  writeFileSync(
    file,
    [
      `# The local server's embedded DynamoDB, for the AWS CLI and the SDKs; good until the server stops.`,
      `[profile ${TOOL_PROFILE}]`,
      'region = us-east-1',
      `endpoint_url = ${endpoint}`,
      `aws_access_key_id = ${LOCAL_ACCESS_KEY_ID}`,
      `aws_secret_access_key = ${secretAccessKey}`,
      `aws_session_token = ${sessionToken}`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
};

export const removeToolProfile = (dataDir: string): void => rmSync(join(dataDir, TOOL_PROFILE_FILE), { force: true });
