// The HMAC key of listPets' paging cursors, read at run time: deployed, from Secrets Manager by
// the ARN the stack gives (Powertools Parameters, cached), so that it never sits in the
// function's configuration, where anyone allowed lambda:GetFunctionConfiguration could read it;
// on the local stage, which has no Secrets Manager, from the environment, through this same seam.

/** Deployed: the secret's ARN (infra/constructs/functions.ts). */
export const CURSOR_SECRET_ARN_ENV = 'CURSOR_SECRET_ARN';
/** Local stage and tests: the secret itself (infra/local/function-environment.ts). */
export const CURSOR_SECRET_ENV = 'CURSOR_SECRET';
/**
 * How long a container keeps the value before reading it again: one GetSecretValue per container
 * per 5 minutes, and a value put in place of the old one (docs/deploying.md) reaches every
 * container within that time.
 */
const MAX_AGE_SECONDS = 300;

/** Loaded only where the secret is in Secrets Manager: the local stage never loads its SDK client. */
const fromSecretsManager = async (arn: string): Promise<string | undefined> => {
  const { getSecret } = await import('@aws-lambda-powertools/parameters/secrets');
  return getSecret<string>(arn, { maxAge: MAX_AGE_SECONDS });
};

export const cursorSecret = async (): Promise<string> => {
  const arn = process.env[CURSOR_SECRET_ARN_ENV];
  const secret = arn ? await fromSecretsManager(arn) : process.env[CURSOR_SECRET_ENV];
  if (!secret) throw new Error(`neither ${CURSOR_SECRET_ARN_ENV} nor ${CURSOR_SECRET_ENV} gives the cursor secret`);
  return secret;
};
