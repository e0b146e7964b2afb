// The CloudWatch Synthetics canary of a deployed stage (infra/monitoring/canary.ts bundles
// this file with esbuild): the smoke suite's read-only checks, every few minutes, with the
// canary's own read key from Secrets Manager. A broken rule throws, which fails the run,
// and the canary's SuccessPercent alarm tells on-call (docs/runbook.md, "SmokeCanary").
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { CANARY_ENV } from '../../infra/monitoring/watch-settings.ts';
import { runSmokeChecks } from './checks.ts';
import { formatReport, passed } from './report.ts';

const secrets = new SecretsManagerClient({});
/** Read once per environment: a rotated key is picked up by the next cold start, or at once after a failure. */
let cachedKey: string | undefined;

const canaryKey = async (): Promise<string> => {
  if (cachedKey) return cachedKey;
  const { SecretString } = await secrets.send(
    new GetSecretValueCommand({ SecretId: process.env[CANARY_ENV.keySecretArn] }),
  );
  const key = SecretString?.trim() ?? '';
  if (!key.startsWith('pet_'))
    throw new Error(
      'the canary key secret holds no pet_… key yet: create a read key and store it (docs/deploying.md, "The canary\'s key")',
    );
  cachedKey = key;
  return key;
};

export const handler = async (): Promise<string> => {
  const baseUrl = process.env[CANARY_ENV.baseUrl]!;
  const results = await runSmokeChecks({ baseUrl, key: await canaryKey(), readOnly: true });
  const report = formatReport(results, `${baseUrl} (read-only)`);
  console.log(report);
  if (!passed(results)) {
    cachedKey = undefined;
    throw new Error(report);
  }
  return report;
};
