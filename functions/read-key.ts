// CloudFormation's custom resource of a key the stack mints (infra/constructs/read-key.ts): a key
// of the keys table of the resource's scope (`read`, or staging's `write` smoke key; only its hash there), the key itself in the resource's secret, and its
// usage identifier answered to the stack (for its API key in the usage plan). Never logged nor
// returned.
//
// Safe under CloudFormation's whole lifecycle (docs/deploying.md, "The release probe key"):
// - One key per generation. Each key is a version of the secret whose id starts `g<Generation>-`.
//   Create and Update first look for a valid key of their generation among the secret's versions
//   and use it (made current again when it is not), and mint only when there is none. So a
//   Create or Update delivered again (Lambda retries an asynchronous invocation that failed),
//   an Update whose properties changed but not the generation, and the Update a rollback sends
//   (back to the previous generation, whose version is still there) mint nothing, and answer
//   that key's physical id: the same one as before, so CloudFormation replaces nothing.
// - A new key is written to the secret first, under a label of its own, then its item, then it
//   is made current: a retry finds the version and completes it; the key in use stays current
//   until its successor is whole.
// - A new generation answers a new physical id, so CloudFormation deletes the old resource once
//   the update succeeded (its cleanup) or, after a rollback, the new one: Delete revokes that
//   key. Nothing is revoked by an Update.
import { randomUUID } from 'node:crypto';
import {
  GetSecretValueCommand,
  ListSecretVersionIdsCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
  type SecretVersionsListEntry,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import type { CloudFormationCustomResourceEvent, CloudFormationCustomResourceResponse } from 'aws-lambda';
import { generateKey, hashKey, type KeyScope } from '../shared/domain/api-keys.ts';
import type { KeyChangeAuthor } from '../shared/domain/stores.ts';
import { createDocumentClient } from '../shared/dynamodb/document-client.ts';
import { keyItemByHash, putKeyItemOnce, revokeKeyHash } from '../shared/dynamodb/key-items.ts';

/** What the stack sets on each read key (infra/constructs/read-key.ts). */
export interface ReadKeyProperties {
  readonly TableName: string;
  readonly SecretArn: string;
  readonly Label: string;
  /** Changed to replace the key (stage settings: readKeyGeneration). */
  readonly Generation: string;
  /**
   * The key's scope. Absent in the templates made before it existed, whose keys were all read
   * keys: a rollback's Update back to one of them must not mint a key of the table's default
   * scope, which is `write` (DEFAULT_KEY_SCOPE).
   */
  readonly Scope?: KeyScope;
}

const documents = createDocumentClient();
const secrets = new SecretsManagerClient({});

/** The resource's physical id: the key's id and hash, enough to revoke it without the key or a scan. */
const PHYSICAL_ID = /^(key_\w+):([0-9a-f]{64})$/;
const CURRENT = 'AWSCURRENT';
/** The label a minted version holds until it is current: a version without any may be deleted. */
const MINTED = 'PETSTORE_MINTED';

/** The secret's versions that hold a key of `generation`: the current one first, then the newest. */
const versionsOf = async (SecretId: string, generation: string) => {
  const all: SecretVersionsListEntry[] = [];
  let NextToken: string | undefined;
  do {
    const page = await secrets.send(new ListSecretVersionIdsCommand({ SecretId, NextToken }));
    all.push(...(page.Versions ?? []));
    NextToken = page.NextToken;
  } while (NextToken);
  const current = all.find((version) => version.VersionStages?.includes(CURRENT))?.VersionId;
  const ours = all
    .filter((version) => version.VersionId?.startsWith(`g${generation}-`))
    .sort(
      (a, b) =>
        Number(b.VersionId === current) - Number(a.VersionId === current) ||
        (b.CreatedDate?.getTime() ?? 0) - (a.CreatedDate?.getTime() ?? 0),
    )
    .map((version) => version.VersionId!);
  return { current, ours };
};

/**
 * Who changes a key here, as `keys list` shows it: the stack's resource (the key tool records a
 * person's identity; here CloudFormation acts, on whoever's deploy).
 */
const stackAuthor = (event: CloudFormationCustomResourceEvent, reason: string): KeyChangeAuthor => ({
  by: `CloudFormation ${event.StackId.split('/')[1] ?? event.StackId} ${event.LogicalResourceId}`,
  reason,
});

/** The key of the stage's generation in use, or a new one: its item, and the secret's version holding it. */
const keyOfGeneration = async (
  { TableName, SecretArn, Label, Generation, Scope = 'read' }: ReadKeyProperties,
  author: KeyChangeAuthor,
) => {
  const { current, ours } = await versionsOf(SecretArn, Generation);
  for (const VersionId of ours) {
    const { SecretString: key } = await secrets.send(new GetSecretValueCommand({ SecretId: SecretArn, VersionId }));
    if (key === undefined) continue;
    const known = await keyItemByHash(documents, TableName, hashKey(key));
    if (known?.revokedAt !== undefined) continue;
    // No item yet: an earlier attempt stopped between the secret and the table.
    const item = known ?? (await putKeyItemOnce(documents, TableName, key, Label, Scope, author));
    return { item, VersionId, current, minted: false };
  }
  const key = generateKey();
  const VersionId = `g${Generation}-${randomUUID()}`;
  await secrets.send(
    new PutSecretValueCommand({
      SecretId: SecretArn,
      ClientRequestToken: VersionId,
      SecretString: key,
      VersionStages: [MINTED],
    }),
  );
  return {
    item: await putKeyItemOnce(documents, TableName, key, Label, Scope, author),
    VersionId,
    current,
    minted: true,
  };
};

const ensure = async (properties: ReadKeyProperties, event: CloudFormationCustomResourceEvent) => {
  const made = stackAuthor(event, `generation ${properties.Generation}`);
  const { item, VersionId, current, minted } = await keyOfGeneration(properties, made);
  try {
    if (VersionId !== current)
      await secrets.send(
        new UpdateSecretVersionStageCommand({
          SecretId: properties.SecretArn,
          VersionStage: CURRENT,
          MoveToVersionId: VersionId,
          RemoveFromVersionId: current,
        }),
      );
  } catch (error) {
    // Never a key in the table that nobody holds; a key found in use is left as it was.
    if (minted)
      await revokeKeyHash(
        documents,
        properties.TableName,
        item.keyHash,
        stackAuthor(event, 'its secret could not be made current, so it was never handed out'),
      );
    throw error;
  }
  const physicalId = `${item.keyId}:${item.keyHash}`;
  return { physicalId, data: { KeyId: item.keyId, UsageKey: item.usageKey! } };
};

const revoke = async (
  physicalId: string,
  { TableName }: ReadKeyProperties,
  event: CloudFormationCustomResourceEvent,
) => {
  const ours = PHYSICAL_ID.exec(physicalId);
  // A create that failed left no key: nothing to revoke.
  if (!ours) return;
  // CloudFormation deletes an old physical id only once the update that replaced it succeeded.
  const author = stackAuthor(event, 'replaced by a new generation, or the stack deleted');
  await revokeKeyHash(documents, TableName, ours[2]!, author).catch((error: Error) => {
    // Already gone with its table: nothing to revoke.
    if (error.name !== 'ConditionalCheckFailedException' && error.name !== 'ResourceNotFoundException') throw error;
  });
};

/** Sends CloudFormation the outcome: a PUT of JSON to the presigned ResponseURL, with no content type. */
const answer = async (url: string, response: CloudFormationCustomResourceResponse) => {
  const sent = await fetch(url, { method: 'PUT', headers: { 'content-type': '' }, body: JSON.stringify(response) });
  if (!sent.ok) throw new Error(`CloudFormation refused the response: ${sent.status}`);
};

export const handler = async (event: CloudFormationCustomResourceEvent): Promise<void> => {
  const properties = event.ResourceProperties as unknown as ReadKeyProperties;
  const base = {
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
  };
  const previousId = event.RequestType === 'Create' ? `failed:${event.RequestId}` : event.PhysicalResourceId;
  let outcome: CloudFormationCustomResourceResponse;
  try {
    if (event.RequestType === 'Delete') {
      await revoke(event.PhysicalResourceId, properties, event);
      outcome = { ...base, Status: 'SUCCESS', PhysicalResourceId: previousId };
    } else {
      const { physicalId, data } = await ensure(properties, event);
      // NoEcho: GetAtt's values masked in CloudFormation's console and API.
      outcome = { ...base, Status: 'SUCCESS', PhysicalResourceId: physicalId, NoEcho: true, Data: data };
    }
  } catch (error) {
    const { name, message } = error as Error;
    console.log(
      JSON.stringify({ message: 'read key failed', requestType: event.RequestType, error: { name, message } }),
    );
    outcome = { ...base, Status: 'FAILED', Reason: `${name}: ${message}`, PhysicalResourceId: previousId };
  }
  // An answer that does not arrive throws: Lambda runs the same event again, which finds the same key.
  await answer(event.ResponseURL, outcome);
};
