// dynalite: the real DynamoDB API over HTTP with its data on disk, served on a Unix socket in
// the data directory for the server's functions and the key tool (dynamodb-socket.ts), and on
// loopback TCP for a developer's tools, refusing there every request not signed with the store's
// secret (dynamodb-credential.ts). The secret is new at every start and removed at the stop.

import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { RequestListener } from 'node:http';
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
import { readOwner } from './data-dir.ts';
import { requireCredential, withCredential } from './dynamodb-credential.ts';
import { listenOnSocket, ownSocket, type StoreSocket, socketsSupported } from './dynamodb-socket.ts';
import { removeToolProfile, writeToolProfile } from './dynamodb-tool-profile.ts';
import { localClientConfig } from './function-environment.ts';
import './dynalite-iterators.ts'; // closes every Query's and Scan's iterator (dynalite 4.0.0 leaks them); bounds its reads
import './dynalite-durable-writes.ts'; // one synced LevelDB batch per item write: no phantom after a crash
import './dynalite-expression-cache.ts'; // each distinct expression parsed once, not on every request
import './dynalite-page-reads.ts'; // a listing's page in one native read, not through per-entry streams
import { finishTableCreation } from './dynalite-table-creation.ts';
import { timestamped } from './timestamped.ts';

const SECRET_FILE = 'dynamodb-secret';

export interface EmbeddedDynamoDB {
  /** Where it listens on TCP, without the credential: what the lock file may show. */
  address: string;
  /** Its Unix socket (dynamodb-socket.ts), where sockets exist: what the lock file shows too. */
  socket: string | undefined;
  /** The address with the credential and the socket (dynamodb-credential.ts): what clients are given. */
  endpoint: string;
  close(): Promise<void>;
}

/** A new secret for this start, readable by its owner only: a request signed before it is refused. */
const freshSecret = (dataDir: string): string => {
  const secret = randomBytes(32).toString('hex');
  rmSync(join(dataDir, SECRET_FILE), { force: true }); // `mode` applies only to a file writeFileSync creates
  writeFileSync(join(dataDir, SECRET_FILE), secret, { mode: 0o600 });
  return secret;
};

export const startEmbeddedDynamoDB = async (dataDir: string): Promise<EmbeddedDynamoDB> => {
  const secret = freshSecret(dataDir);
  const path = join(dataDir, 'dynamodb');
  for (const table of await finishTableCreation(path))
    console.warn(
      timestamped(`warning: table ${table} was left CREATING by a start that was killed; its creation is finished now`),
    );
  const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const [store] = server.listeners('request') as RequestListener[];
  const socket: StoreSocket | undefined = socketsSupported ? await listenOnSocket(dataDir, store!) : undefined;
  requireCredential(server, secret);
  limitConnections(server, { max: connectionBudget().dynamodb, name: 'embedded DynamoDB' }); // after: it replaces the request listener
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const address = `http://127.0.0.1:${port}`;
  writeToolProfile(dataDir, withCredential(address, secret));
  return {
    address,
    socket: socket?.path,
    endpoint: withCredential(address, secret, socket?.path),
    close: async () => {
      await socket?.close(); // first: its requests are the store's, which the next line closes
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve())); // closes the LevelDB store too
        server.closeAllConnections(); // clients' keep-alive sockets would hold close() open
      });
      rmSync(join(dataDir, SECRET_FILE), { force: true }); // dies with the server
      removeToolProfile(dataDir);
    },
  };
};

/**
 * The running server's embedded DynamoDB (its URL with the credential and, when the server has
 * one, its socket), when a server holds `dataDir`. With `verified`, only through a socket that
 * only this user's server can have made (ownSocket): what the key tool writes through.
 */
export const runningDynamoDB = (dataDir: string, { verified = false } = {}): string | undefined => {
  const owner = readOwner(dataDir);
  if (owner?.owner !== 'server' || !owner.dynamodbAddress) return undefined;
  const socket = owner.dynamodbSocket;
  if (verified && !(socket && ownSocket(socket))) return undefined;
  try {
    return withCredential(owner.dynamodbAddress, readFileSync(join(dataDir, SECRET_FILE), 'utf8').trim(), socket);
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
