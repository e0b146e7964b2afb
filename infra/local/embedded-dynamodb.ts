// dynalite: the real DynamoDB API over HTTP, on loopback, with its data on disk, and
// refusing every request not signed with the data directory's own secret
// (dynamodb-credential.ts).

import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DynamoDBClient,
  ResourceInUseException,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { type TableDefinition, tables } from '../../shared/dynamodb/tables.ts';
import { connectionBudget, limitConnections } from './connection-limit.ts';
import { persistentSecret, readOwner } from './data-dir.ts';
import { requireCredential, withCredential } from './dynamodb-credential.ts';
import { localClientConfig } from './function-environment.ts';
import './dynalite-iterators.ts'; // closes every Query's and Scan's iterator (dynalite 4.0.0 leaks them); bounds its reads
import './dynalite-durable-writes.ts'; // one synced LevelDB batch per item write: no phantom after a crash
import { finishTableCreation } from './dynalite-table-creation.ts';

const SECRET_FILE = 'dynamodb-secret';

export interface EmbeddedDynamoDB {
  /** Where it listens, without the credential: what the lock file may show. */
  address: string;
  /** The address with the credential (dynamodb-credential.ts): what clients are given. */
  endpoint: string;
  close(): Promise<void>;
}

export const startEmbeddedDynamoDB = async (dataDir: string): Promise<EmbeddedDynamoDB> => {
  const secret = persistentSecret(dataDir, SECRET_FILE);
  const path = join(dataDir, 'dynamodb');
  for (const table of await finishTableCreation(path))
    console.warn(`warning: table ${table} was left CREATING by a start that was killed; its creation is finished now`);
  const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  requireCredential(server, secret);
  limitConnections(server, { max: connectionBudget().dynamodb, name: 'embedded DynamoDB' }); // after: it replaces the request listener
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const address = `http://127.0.0.1:${port}`;
  return {
    address,
    endpoint: withCredential(address, secret),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve())); // closes the LevelDB store too
        server.closeAllConnections(); // clients' keep-alive sockets would hold close() open
      }),
  };
};

/** The running server's embedded DynamoDB (its URL with the credential), when a server holds `dataDir`. */
export const runningDynamoDB = (dataDir: string): string | undefined => {
  const owner = readOwner(dataDir);
  if (owner?.owner !== 'server' || !owner.dynamodbAddress) return undefined;
  try {
    return withCredential(owner.dynamodbAddress, readFileSync(join(dataDir, SECRET_FILE), 'utf8').trim());
  } catch {
    return undefined; // the server has not written it yet
  }
};

export const createTableInput = (table: TableDefinition, tableName = table.name) => {
  const attributes = new Map<string, string>();
  for (const key of [
    table.partitionKey,
    ...table.indexes.flatMap((i) => (i.sortKey ? [i.partitionKey, i.sortKey] : [i.partitionKey])),
  ]) {
    attributes.set(key.name, key.type);
  }
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: [...attributes].map(([AttributeName, AttributeType]) => ({
      AttributeName,
      AttributeType: AttributeType as 'S' | 'N',
    })),
    KeySchema: [{ AttributeName: table.partitionKey.name, KeyType: 'HASH' as const }],
    GlobalSecondaryIndexes: table.indexes.length
      ? table.indexes.map((index) => ({
          IndexName: index.indexName,
          KeySchema: [
            { AttributeName: index.partitionKey.name, KeyType: 'HASH' as const },
            ...(index.sortKey ? [{ AttributeName: index.sortKey.name, KeyType: 'RANGE' as const }] : []),
          ],
          Projection: { ProjectionType: index.projection },
        }))
      : undefined,
  };
};

/**
 * Creates a table, unless it exists, and returns once it takes writes. dynalite answers
 * CreateTable with the table CREATING and marks it ACTIVE from a timer; until then every
 * write to it is refused as ResourceNotFoundException, and on a busy machine the timer
 * can run after the caller's next request.
 */
export const createTable = async (client: DynamoDBClient, input: CreateTableCommandInput): Promise<void> => {
  try {
    await client.send(new CreateTableCommand(input));
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  // The waiter's first DescribeTable is immediate; the delays (seconds) suit a local store.
  await waitUntilTableExists(
    { client, minDelay: 0.01, maxDelay: 0.2, maxWaitTime: 10 },
    { TableName: input.TableName },
  );
};

/** Creates every table of shared/dynamodb/tables.ts that does not exist yet. */
export const ensureTables = async (endpoint: string): Promise<void> => {
  const client = new DynamoDBClient(localClientConfig(endpoint));
  try {
    await Promise.all(tables.map((table) => createTable(client, createTableInput(table))));
  } finally {
    client.destroy();
  }
};
