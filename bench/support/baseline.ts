// The baseline: a bare HTTP server that makes the same DynamoDB call as each
// operation, with no gateway, middleware, validation or auth. The local server's
// overhead is whatever it costs beyond this. In-process beside a stage (target.ts) it
// shares the functions' client; as its own process (bare-server.ts), a plain one.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, PutCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Pet } from '../../shared/api/schemas.ts';
import { documentClient } from '../../shared/dynamodb/client.ts';
import { petsTable, STATUS_INDEX, tableName } from '../../shared/dynamodb/tables.ts';

/** Far above any id the service hands out during a run, so baseline creates never collide with it. */
const BASELINE_FIRST_ID = 2_000_000_000_000;

export interface BaselineServer {
  baseUrl: string;
  close(): Promise<void>;
}

export interface BaselineOptions {
  client?: DynamoDBDocumentClient;
  /** Answers `GET /__stats` with what it returns. */
  stats?: () => unknown;
}

export const startBaselineServer = async (options: BaselineOptions = {}): Promise<BaselineServer> => {
  const client = options.client ?? documentClient();
  const TableName = tableName(petsTable);
  let nextId = BASELINE_FIRST_ID;

  const answer = async (method: string, url: URL, body: string): Promise<[number, unknown]> => {
    if (options.stats && url.pathname === '/__stats') return [200, options.stats()];
    const getMatch = /^\/pets\/(\d+)$/.exec(url.pathname);
    if (method === 'GET' && getMatch) {
      const { Item } = await client.send(new GetCommand({ TableName, Key: { id: Number(getMatch[1]) } }));
      return Item ? [200, Item] : [404, {}];
    }
    if (method === 'GET' && url.pathname === '/pets') {
      const limit = Number(url.searchParams.get('limit') ?? 20);
      const status = url.searchParams.get('status');
      const after = url.searchParams.get('after');
      const { Items = [] } = await client.send(
        status
          ? new QueryCommand({
              TableName,
              IndexName: STATUS_INDEX,
              Limit: limit + 1,
              KeyConditionExpression: '#status = :status',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':status': status },
              ExclusiveStartKey: after ? { status, id: Number(after) } : undefined,
            })
          : new ScanCommand({
              TableName,
              Limit: limit + 1,
              ExclusiveStartKey: after ? { id: Number(after) } : undefined,
            }),
      );
      return [200, Items.slice(0, limit)];
    }
    if (method === 'POST' && url.pathname === '/pets') {
      const pet = { id: nextId++, status: 'available', ...(JSON.parse(body) as object) } as Pet;
      // Conditional, as the service's put is.
      await client.send(new PutCommand({ TableName, Item: pet, ConditionExpression: 'attribute_not_exists(id)' }));
      return [201, pet];
    }
    return [404, {}];
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      answer(req.method ?? 'GET', new URL(req.url ?? '/', 'http://localhost'), Buffer.concat(chunks).toString('utf8'))
        .catch(() => [500, {}] as [number, unknown])
        .then(([status, payload]) => {
          const text = JSON.stringify(payload);
          res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
          res.end(text);
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};
