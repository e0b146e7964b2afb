// The HMAC key of listPets' paging cursors, read at run time: deployed, from Secrets Manager by
// the ARN the stack gives, through the AWS Parameters and Secrets Lambda Extension (a layer the
// stack adds: an HTTP GET to its endpoint on localhost, which caches the value), so that the
// bundle carries no Secrets Manager client, which cost listPets' cold start its target
// (docs/performance.md); and never in the function's configuration, where anyone allowed
// lambda:GetFunctionConfiguration could read it. On the local stage, which has no Secrets
// Manager, from the environment, through this same seam.
// The extension's interface: https://docs.aws.amazon.com/secretsmanager/latest/userguide/retrieving-secrets_lambda.html
// (GET /secretsmanager/get?secretId=…, the X-Aws-Parameters-Secrets-Token header carrying
// AWS_SESSION_TOKEN, the answer GetSecretValue's JSON; port PARAMETERS_SECRETS_EXTENSION_HTTP_PORT, 2773).
// Node's http rather than fetch: fetch loads undici, tens of ms of a cold start (lambda-node-http.ts).
import http from 'node:http';

/** Deployed: the secret's ARN (infra/constructs/functions.ts). */
export const CURSOR_SECRET_ARN_ENV = 'CURSOR_SECRET_ARN';
/** Local stage and tests: the secret itself (infra/local/function-environment.ts). */
export const CURSOR_SECRET_ENV = 'CURSOR_SECRET';
/**
 * How long a container keeps the value before asking the extension again, and how long the
 * extension keeps it before asking Secrets Manager (the stack sets its TTL from this): together
 * at most 5 minutes, so a value put in place of the old one (docs/deploying.md) reaches every
 * container within that time, while a warm invocation within the minute makes no call at all.
 */
export const CONTAINER_CACHE_SECONDS = 60;
export const EXTENSION_CACHE_SECONDS = 240;
/** The extension's own default port, when the layer does not say (it sets PARAMETERS_SECRETS_EXTENSION_HTTP_PORT). */
const DEFAULT_PORT = 2773;
/** A loopback call to a cache; past this something is wrong and the invocation's 5xx says so. */
const TIMEOUT_MS = 3000;

const fromExtension = (arn: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const request = http.get(
      {
        host: 'localhost',
        port: Number(process.env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT ?? DEFAULT_PORT),
        path: `/secretsmanager/get?secretId=${encodeURIComponent(arn)}`,
        headers: { 'X-Aws-Parameters-Secrets-Token': process.env.AWS_SESSION_TOKEN ?? '' },
        timeout: TIMEOUT_MS,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          // Its answer to a failure is the error's text, which names no secret value: safe to pass on.
          if (response.statusCode !== 200)
            return reject(new Error(`the secrets extension answered ${response.statusCode}: ${body.slice(0, 200)}`));
          try {
            const { SecretString } = JSON.parse(body) as { SecretString?: unknown };
            if (typeof SecretString !== 'string') throw new Error('no SecretString');
            resolve(SecretString);
          } catch (error) {
            reject(new Error(`the secrets extension's answer is not a secret string (${(error as Error).message})`));
          }
        });
      },
    );
    request.on('timeout', () => request.destroy(new Error(`the secrets extension did not answer in ${TIMEOUT_MS} ms`)));
    request.on('error', reject);
  });

let cached: { readonly arn: string; readonly secret: string; readonly until: number } | undefined;

export const cursorSecret = async (): Promise<string> => {
  const arn = process.env[CURSOR_SECRET_ARN_ENV];
  if (!arn) {
    const secret = process.env[CURSOR_SECRET_ENV];
    if (!secret) throw new Error(`neither ${CURSOR_SECRET_ARN_ENV} nor ${CURSOR_SECRET_ENV} gives the cursor secret`);
    return secret;
  }
  const now = Date.now();
  if (cached?.arn === arn && now < cached.until) return cached.secret;
  const secret = await fromExtension(arn);
  if (!secret) throw new Error('the cursor secret is empty');
  cached = { arn, secret, until: now + CONTAINER_CACHE_SECONDS * 1000 };
  return secret;
};
