// The environment the local stage gives its functions, as the stack gives it to them
// deployed: table names, Powertools settings, the cursor secret, and the embedded
// DynamoDB's address and its credential. The in-process test harness uses it too.
import { type RateLimits, rateLimitsEnv } from '../../shared/domain/api-keys.ts';
import { REQUEST_TIMEOUT_ENV, SOCKET_PATH_ENV } from '../../shared/dynamodb/client.ts';
import { STATUS_SHARDS_ENV } from '../../shared/dynamodb/status-shards.ts';
import { tables } from '../../shared/dynamodb/tables.ts';
import { CURSOR_SECRET_ENV } from '../../shared/lambda/cursor-secret.ts';
import { powertoolsEnvironment } from '../../shared/observability/metric-names.ts';
import { sourceCommitEnvironment } from '../source-commit.ts';
import { LOCAL_ACCESS_KEY_ID, parseConnection } from './dynamodb-credential.ts';

/** Region and credentials for a plain dynalite (tests); the embedded DynamoDB's secret comes with its URL. */
export const LOCAL_AWS_ENV = {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: LOCAL_ACCESS_KEY_ID,
  AWS_SECRET_ACCESS_KEY: 'local',
} as const;

/**
 * The SDK's environment for the DynamoDB at `url` (with its credential as user info, if it has
 * one), and the socket to reach it through (client.ts's SOCKET_PATH_ENV; unset: none, even when
 * this process had one before).
 */
export const dynamodbEnvironment = (url: string) => {
  const { endpoint, socketPath, secretAccessKey, sessionToken } = parseConnection(url);
  return {
    ...LOCAL_AWS_ENV,
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    AWS_SECRET_ACCESS_KEY: secretAccessKey ?? LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY,
    ...(sessionToken !== undefined && { AWS_SESSION_TOKEN: sessionToken }),
    // '' for none: Object.assign onto process.env would write "undefined".
    [SOCKET_PATH_ENV]: socketPath ? `${endpoint} ${socketPath}` : '',
  };
};

/** A DynamoDB client's settings for the DynamoDB at `url` (the embedded one's carries its credential and socket). */
export const localClientConfig = (url: string) => {
  const { endpoint, socketPath, secretAccessKey, sessionToken } = parseConnection(url);
  return {
    endpoint,
    region: LOCAL_AWS_ENV.AWS_REGION,
    credentials: {
      accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID,
      secretAccessKey: secretAccessKey ?? LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY,
      sessionToken,
    },
    ...(socketPath && { requestHandler: { httpAgent: { socketPath } } }),
  };
};

export interface FunctionEnvironmentOptions {
  /** The DynamoDB's URL, with its credential as user info when it checks one. */
  readonly dynamodbEndpoint: string;
  readonly stage: string;
  readonly logLevel: string;
  readonly cursorSecret: string;
  /** The functions' DynamoDB request timeout; unset, the deployed budget holds. */
  readonly dynamodbRequestTimeoutMs?: number | undefined;
  /** Each key's limits, which the authorizer names in RateLimit-Policy; none: no header. */
  readonly keyLimits?: RateLimits | undefined;
  /** N of the status index (PETSTORE_INDEX_SHARDS); unset, the functions' default of 1. */
  readonly statusIndexShards?: number | undefined;
  /** Physical table names by definition name; by default the definition's name (what ensureTables creates). */
  readonly tableNames?: Readonly<Partial<Record<string, string>>>;
}

export const functionEnvironment = (options: FunctionEnvironmentOptions): Record<string, string> => ({
  ...dynamodbEnvironment(options.dynamodbEndpoint),
  ...(options.dynamodbRequestTimeoutMs !== undefined && {
    [REQUEST_TIMEOUT_ENV]: String(options.dynamodbRequestTimeoutMs),
  }),
  // The local stage has no Secrets Manager: the secret itself, through the same seam (cursor-secret.ts).
  [CURSOR_SECRET_ENV]: options.cursorSecret,
  ...(options.keyLimits && rateLimitsEnv(options.keyLimits)),
  ...(options.statusIndexShards !== undefined && { [STATUS_SHARDS_ENV]: String(options.statusIndexShards) }),
  ...powertoolsEnvironment(options.stage, options.logLevel),
  // The commit every line names, from git at start (as the stack takes it from git at synth).
  ...sourceCommitEnvironment(),
  // EMF lines only mean something to CloudWatch; POWERTOOLS_METRICS_DISABLED=false shows them.
  POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED ?? 'true',
  ...Object.fromEntries(tables.map((table) => [table.envVar, options.tableNames?.[table.name] ?? table.name])),
});
