// Who is changing a key, for the record kept with it (docs/keys.md, "Who changed a key"): on
// stage local the OS user; on a deployed stage the caller's AWS identity, as STS
// GetCallerIdentity names it (its ARN: the user, or the assumed role and its session name, e.g.
// arn:aws:sts::123456789012:assumed-role/Admin/alice). That call needs no permission: AWS
// answers it for any valid credentials
// (https://docs.aws.amazon.com/STS/latest/APIReference/API_GetCallerIdentity.html).
import type { STSClient } from '@aws-sdk/client-sts';
import { osUser } from '../../infra/local/os-user.ts';

export const localAuthor = async (): Promise<string> => osUser();

/** The caller's ARN; `client` for a test that points it elsewhere. */
export const awsCaller = async (client?: STSClient): Promise<string> => {
  // Loaded only here: the local stage, the common case, should not pay for this client.
  const sts = await import('@aws-sdk/client-sts');
  const { Arn } = await (client ?? new sts.STSClient({})).send(new sts.GetCallerIdentityCommand({}));
  if (!Arn) throw new Error('STS GetCallerIdentity named no caller');
  return Arn;
};
