// A fresh in-memory dynalite with the shared table definitions, for repository tests.

import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import dynalite from 'dynalite';
import { LOCAL_DYNAMODB_REQUEST_TIMEOUT_MS } from '../../infra/local/config.ts';
import { ensureTables } from '../../infra/local/embedded-dynamodb.ts';
import { LOCAL_AWS_ENV, localClientConfig } from '../../infra/local/function-environment.ts';
import { createDynamoDBClient, DYNAMODB_TIME_BUDGET } from '../../shared/dynamodb/client.ts';
import { createDocumentClient } from '../../shared/dynamodb/document-client.ts';

export interface TestDynamoDB {
  endpoint: string;
  client: DynamoDBDocumentClient;
  /**
   * The functions' plain client (the animals' repository's), pointed at this DynamoDB, with the
   * local stage's time budget: these tests are about what is stored, and a loaded machine must not
   * turn them into tests of the deployed 1 s budget (the fault tests hold that: budgetedPlainClient).
   */
  plain: DynamoDBClient;
  close(): Promise<void>;
}

export const startTestDynamoDB = async (): Promise<TestDynamoDB> => {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await ensureTables(endpoint);
  Object.assign(process.env, LOCAL_AWS_ENV);
  const client = DynamoDBDocumentClient.from(new DynamoDBClient(localClientConfig(endpoint)));
  const budget = { ...DYNAMODB_TIME_BUDGET, requestTimeoutMs: LOCAL_DYNAMODB_REQUEST_TIMEOUT_MS };
  const plain = createDynamoDBClient(budget, undefined, localClientConfig(endpoint));
  return {
    endpoint,
    client,
    plain,
    close: async () => {
      client.destroy();
      plain.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
};

/**
 * A client with the production time budget, pointed at `endpoint` (for fault tests).
 * The variable stays set: the SDK reads it at the first request, not at construction.
 */
export const budgetedClient = (endpoint: string) => {
  Object.assign(process.env, LOCAL_AWS_ENV, { AWS_ENDPOINT_URL_DYNAMODB: endpoint });
  return createDocumentClient();
};

/** The animals' plain client with the production time budget, pointed at `endpoint` (for fault tests). */
export const budgetedPlainClient = (endpoint: string) => {
  Object.assign(process.env, LOCAL_AWS_ENV, { AWS_ENDPOINT_URL_DYNAMODB: endpoint });
  return createDynamoDBClient();
};
