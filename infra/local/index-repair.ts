// What a crash could leave in a data directory before item writes were atomic
// (dynalite-durable-writes.ts): an index entry whose item was never written, which a
// filtered listing shows and a get by id does not find. After a run that did not stop
// cleanly (or the first run on a directory this version has not closed yet), such
// entries are removed before the stage serves. Their creates were never answered 201.
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DeleteCommand, DynamoDBDocumentClient, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { tables } from '../../shared/dynamodb/tables.ts';
import { localClientConfig } from './function-environment.ts';

const CLEAN_SHUTDOWN_FILE = 'clean-shutdown';

type Item = Record<string, unknown>;

/** The keys among `keys` whose item exists. */
const existing = async (
  client: DynamoDBDocumentClient,
  table: string,
  keyName: string,
  keys: Item[],
): Promise<Set<unknown>> => {
  const found = new Set<unknown>();
  let pending: Item[] = keys;
  while (pending.length) {
    const { Responses, UnprocessedKeys } = await client.send(
      new BatchGetCommand({
        RequestItems: {
          [table]: { Keys: pending, ProjectionExpression: '#k', ExpressionAttributeNames: { '#k': keyName } },
        },
      }),
    );
    for (const item of Responses?.[table] ?? []) found.add(item[keyName]);
    pending = (UnprocessedKeys?.[table]?.Keys as Item[] | undefined) ?? [];
  }
  return found;
};

/** Removes index entries without an item; returns how many. */
const removeOrphanIndexEntries = async (client: DynamoDBDocumentClient): Promise<number> => {
  let removed = 0;
  for (const table of tables) {
    const keyName = table.partitionKey.name;
    for (const { indexName } of table.indexes) {
      let ExclusiveStartKey: Item | undefined;
      do {
        const page = await client.send(
          new ScanCommand({ TableName: table.name, IndexName: indexName, ExclusiveStartKey, Limit: 100 }),
        );
        ExclusiveStartKey = page.LastEvaluatedKey;
        const entries = page.Items ?? [];
        if (!entries.length) continue;
        const found = await existing(
          client,
          table.name,
          keyName,
          entries.map((entry) => ({ [keyName]: entry[keyName] })),
        );
        for (const entry of entries.filter((e) => !found.has(e[keyName]))) {
          // dynalite removes an item's index entries when it deletes the item: give it that item to delete.
          await client.send(new PutCommand({ TableName: table.name, Item: entry }));
          await client.send(new DeleteCommand({ TableName: table.name, Key: { [keyName]: entry[keyName] } }));
          removed++;
        }
      } while (ExclusiveStartKey);
    }
  }
  return removed;
};

/**
 * Repairs `dataDir` unless its last run stopped cleanly; then marks it as in use, so that
 * a crash from now on is seen at the next start. Returns the index entries removed.
 */
export const repairAfterCrash = async (dataDir: string, endpoint: string): Promise<number> => {
  const marker = join(dataDir, CLEAN_SHUTDOWN_FILE);
  if (existsSync(marker)) {
    rmSync(marker);
    return 0;
  }
  const client = DynamoDBDocumentClient.from(new DynamoDBClient(localClientConfig(endpoint)));
  try {
    return await removeOrphanIndexEntries(client);
  } finally {
    client.destroy();
  }
};

/** Called once the store is closed: the next start needs no repair. */
export const markCleanShutdown = (dataDir: string): void => writeFileSync(join(dataDir, CLEAN_SHUTDOWN_FILE), '');
