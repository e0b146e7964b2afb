// A loopback stand-in for the four Secrets Manager calls the stack's read keys make
// (functions/read-key.ts), written from AWS's API reference, not from that code:
// - PutSecretValue (https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_PutSecretValue.html):
//   ClientRequestToken is the new version's id; a token already used with the same value is
//   ignored, with another value it fails (ResourceExistsException); "If you don't include
//   VersionStages, then Secrets Manager automatically moves the staging label AWSCURRENT to this
//   version".
// - UpdateSecretVersionStage (.../API_UpdateSecretVersionStage.html): "Each staging label can be
//   attached to only one version at a time"; a label attached elsewhere needs RemoveFromVersionId
//   naming that version (else InvalidParameterException); "Whenever you move AWSCURRENT, Secrets
//   Manager automatically moves the label AWSPREVIOUS to the version that AWSCURRENT was removed from."
// - GetSecretValue (.../API_GetSecretValue.html): by VersionId or VersionStage, AWSCURRENT by default.
// - ListSecretVersionIds (.../API_ListSecretVersionIds.html): the versions with their labels and
//   creation dates; without IncludeDeprecated, only those with a label.
// Each secret starts as CloudFormation makes it with GenerateSecretString: one AWSCURRENT version
// holding a random placeholder. `refuse` makes the next calls of one operation fail.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type Listening, listenOnLoopback } from '../../tools/harness/loopback.ts';

interface Version {
  id: string;
  value: string;
  stages: Set<string>;
  created: number;
}

export interface SecretsManagerStandIn {
  endpoint: string;
  /** The value AWSCURRENT names, as GetSecretValue answers it by default. */
  current(secretId: string): string | undefined;
  versions(secretId: string): readonly Version[];
  /** The next `times` calls of `operation` (e.g. `UpdateSecretVersionStage`) answer AccessDeniedException. */
  refuse(operation: string, times?: number): void;
  close(): Promise<void>;
}

class Refusal extends Error {
  readonly type: string;
  constructor(type: string, message: string) {
    super(message);
    this.type = type;
  }
}

const bodyOf = async (request: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

/** `onOther` serves any request that is not a Secrets Manager call (the CloudFormation response URL). */
export const startSecretsManager = async (
  onOther: (request: IncomingMessage, body: string, response: ServerResponse) => void,
): Promise<SecretsManagerStandIn> => {
  const secrets = new Map<string, Version[]>();
  const refusals = new Map<string, number>();
  let clock = 0;

  const secret = (id: string): Version[] => {
    let versions = secrets.get(id);
    if (!versions) {
      versions = [
        { id: randomUUID(), value: randomBytes(16).toString('hex'), stages: new Set(['AWSCURRENT']), created: ++clock },
      ];
      secrets.set(id, versions);
    }
    return versions;
  };
  const holder = (versions: Version[], stage: string) => versions.find((v) => v.stages.has(stage));
  /** Moves `stage` to `to`, from whichever version held it; AWSCURRENT takes AWSPREVIOUS along. */
  const move = (versions: Version[], stage: string, to: Version) => {
    const from = holder(versions, stage);
    if (from === to) return;
    from?.stages.delete(stage);
    to.stages.add(stage);
    if (stage === 'AWSCURRENT' && from) {
      holder(versions, 'AWSPREVIOUS')?.stages.delete('AWSPREVIOUS');
      from.stages.add('AWSPREVIOUS');
    }
  };

  const operations: Record<string, (input: any) => object> = {
    PutSecretValue({ SecretId, ClientRequestToken, SecretString, VersionStages }) {
      const versions = secret(SecretId);
      const existing = versions.find((v) => v.id === ClientRequestToken);
      if (existing) {
        if (existing.value !== SecretString)
          throw new Refusal('ResourceExistsException', 'You cannot modify an existing version.');
        return { ARN: SecretId, VersionId: existing.id, VersionStages: [...existing.stages] };
      }
      const version: Version = {
        id: ClientRequestToken ?? randomUUID(),
        value: SecretString,
        stages: new Set(),
        created: ++clock,
      };
      versions.push(version);
      for (const stage of (VersionStages as string[] | undefined) ?? ['AWSCURRENT']) move(versions, stage, version);
      return { ARN: SecretId, VersionId: version.id, VersionStages: [...version.stages] };
    },
    GetSecretValue({ SecretId, VersionId, VersionStage }) {
      const versions = secret(SecretId);
      const version =
        VersionId !== undefined
          ? versions.find((v) => v.id === VersionId && (VersionStage === undefined || v.stages.has(VersionStage)))
          : holder(versions, VersionStage ?? 'AWSCURRENT');
      if (!version)
        throw new Refusal('ResourceNotFoundException', "Secrets Manager can't find the specified secret value.");
      return { ARN: SecretId, VersionId: version.id, SecretString: version.value, VersionStages: [...version.stages] };
    },
    ListSecretVersionIds({ SecretId, IncludeDeprecated }) {
      const versions = secret(SecretId).filter((v) => IncludeDeprecated || v.stages.size > 0);
      return {
        ARN: SecretId,
        Versions: versions.map((v) => ({ VersionId: v.id, VersionStages: [...v.stages], CreatedDate: v.created })),
      };
    },
    UpdateSecretVersionStage({ SecretId, VersionStage, MoveToVersionId, RemoveFromVersionId }) {
      const versions = secret(SecretId);
      const from = holder(versions, VersionStage);
      if (MoveToVersionId !== undefined) {
        const to = versions.find((v) => v.id === MoveToVersionId);
        if (!to) throw new Refusal('ResourceNotFoundException', 'No such version.');
        if (from && from !== to && from.id !== RemoveFromVersionId)
          throw new Refusal(
            'InvalidParameterException',
            `The parameter RemoveFromVersionId can't be empty. Staging label ${VersionStage} is currently attached to version ${from.id}`,
          );
        move(versions, VersionStage, to);
      } else if (from && from.id === RemoveFromVersionId) from.stages.delete(VersionStage);
      return { ARN: SecretId, Name: SecretId };
    },
  };

  const host: Listening = await listenOnLoopback(
    createServer(async (request, response) => {
      const body = await bodyOf(request);
      const target = String(request.headers['x-amz-target'] ?? '');
      if (!target.startsWith('secretsmanager.')) return onOther(request, body, response);
      const name = target.slice('secretsmanager.'.length);
      const reply = (status: number, payload: object) => {
        response.writeHead(status, { 'Content-Type': 'application/x-amz-json-1.1' });
        response.end(JSON.stringify(payload));
      };
      try {
        const left = refusals.get(name) ?? 0;
        if (left > 0) {
          refusals.set(name, left - 1);
          throw new Refusal('AccessDeniedException', 'not allowed here');
        }
        const operation = operations[name];
        if (!operation) throw new Refusal('InvalidRequestException', `${name} is not served here`);
        reply(200, operation(JSON.parse(body || '{}')));
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        reply(400, { __type: error.type, message: error.message });
      }
    }),
  );
  return {
    endpoint: host.endpoint,
    current: (id) => secrets.get(id)?.find((v) => v.stages.has('AWSCURRENT'))?.value,
    versions: (id) => secrets.get(id) ?? [],
    refuse: (operation, times = 1) => void refusals.set(operation, times),
    close: () => host.close(),
  };
};
