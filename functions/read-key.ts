// CloudFormation's custom resource of a stage's read key (infra/constructs/read-key.ts): on Create,
// and on an Update (a new `Generation`: "replace the key"), it mints a `read` key as the key tool
// does, keeps only its hash in the keys table and the key in the resource's secret, and answers
// with the key's usage identifier (for its API key in the usage plan). CloudFormation then deletes
// the replaced resource: Delete revokes that key. The key itself is never logged nor returned.
import { PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { CloudFormationCustomResourceEvent, CloudFormationCustomResourceResponse } from 'aws-lambda';
import { hashKey } from '../shared/domain/api-keys.ts';
import { createDocumentClient } from '../shared/dynamodb/document-client.ts';
import { createKeysRepository, revokeKeyHash } from '../shared/dynamodb/keys-repository.ts';

/** What the stack sets on each read key (infra/constructs/read-key.ts). */
export interface ReadKeyProperties {
  readonly TableName: string;
  readonly SecretArn: string;
  readonly Label: string;
  /** Changed to replace the key (stage settings: readKeyGeneration). */
  readonly Generation: string;
}

const documents = createDocumentClient();
const secrets = new SecretsManagerClient({});

/** The resource's physical id: the key's id and hash, enough to revoke it without the key or a scan. */
const PHYSICAL_ID = /^(key_\w+):([0-9a-f]{64})$/;

const mint = async ({ TableName, SecretArn, Label }: ReadKeyProperties) => {
  const created = await createKeysRepository(documents, TableName).create(Label, { scope: 'read' });
  const keyHash = hashKey(created.key);
  try {
    await secrets.send(new PutSecretValueCommand({ SecretId: SecretArn, SecretString: created.key }));
  } catch (error) {
    // Never a key in the table that nobody holds.
    await revokeKeyHash(documents, TableName, keyHash);
    throw error;
  }
  return { physicalId: `${created.keyId}:${keyHash}`, data: { KeyId: created.keyId, UsageKey: created.usageKey } };
};

const revoke = async (physicalId: string, { TableName }: ReadKeyProperties) => {
  const ours = PHYSICAL_ID.exec(physicalId);
  // A create that failed left no key: nothing to revoke.
  if (!ours) return;
  await revokeKeyHash(documents, TableName, ours[2]!).catch((error: Error) => {
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
  try {
    if (event.RequestType === 'Delete') {
      await revoke(event.PhysicalResourceId, properties);
      return await answer(event.ResponseURL, { ...base, Status: 'SUCCESS', PhysicalResourceId: previousId });
    }
    const { physicalId, data } = await mint(properties);
    await answer(event.ResponseURL, {
      ...base,
      Status: 'SUCCESS',
      PhysicalResourceId: physicalId,
      // GetAtt's values masked in CloudFormation's console and API.
      NoEcho: true,
      Data: data,
    });
  } catch (error) {
    const { name, message } = error as Error;
    console.log(
      JSON.stringify({ message: 'read key failed', requestType: event.RequestType, error: { name, message } }),
    );
    await answer(event.ResponseURL, {
      ...base,
      Status: 'FAILED',
      Reason: `${name}: ${message}`,
      PhysicalResourceId: previousId,
    });
  }
};
