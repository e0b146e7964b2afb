// The local server's management endpoint, its twin of API Gateway's management API.
// `DELETE /authorizer-cache` flushes the stage's authorizer cache (FlushStageAuthorizersCache
// deployed): the key tool calls it after a revoke. It listens on loopback only, its address
// is in the data directory's lock file (as the embedded DynamoDB's is), and every call must
// carry the token the server writes into the data directory at start, readable by its owner only.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export const MANAGEMENT_TOKEN_FILE = 'management-token';

export interface ManagementActions {
  flushAuthorizerCache(): void;
}

export interface ManagementEndpoint {
  endpoint: string;
  close(): Promise<void>;
}

const tokenFile = (dataDir: string) => join(dataDir, MANAGEMENT_TOKEN_FILE);

const sameToken = (given: string, expected: string): boolean => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** Starts the endpoint on 127.0.0.1 and writes a new token for it into `dataDir`. */
export const startManagementEndpoint = async (
  dataDir: string,
  actions: ManagementActions,
): Promise<ManagementEndpoint> => {
  const token = randomBytes(32).toString('hex');
  rmSync(tokenFile(dataDir), { force: true }); // `mode` applies only to a file writeFileSync creates
  writeFileSync(tokenFile(dataDir), token, { mode: 0o600 });
  chmodSync(tokenFile(dataDir), 0o600);

  const server = createServer((req, res) => {
    const answer = (status: number, body?: unknown) => {
      res.writeHead(status, body === undefined ? {} : { 'Content-Type': 'application/json' });
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };
    req.resume();
    if (!sameToken(req.headers.authorization ?? '', `Bearer ${token}`))
      return answer(401, { message: 'a valid management token is required' });
    if (req.method === 'DELETE' && req.url === '/authorizer-cache') {
      actions.flushAuthorizerCache();
      return answer(204);
    }
    return answer(404, { message: 'no such management operation' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        rmSync(tokenFile(dataDir), { force: true });
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};

/** Calls the running server's management endpoint, with the token from its data directory. */
const callManagement = async (dataDir: string, endpoint: string, method: 'DELETE', path: string): Promise<Response> => {
  const token = readFileSync(tokenFile(dataDir), 'utf8').trim();
  const response = await fetch(`${endpoint}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(5000),
  });
  if (!response.ok)
    throw new Error(`the server's management endpoint answered ${response.status} to ${method} ${path}`);
  return response;
};

export const flushAuthorizerCache = async (dataDir: string, endpoint: string): Promise<void> => {
  await callManagement(dataDir, endpoint, 'DELETE', '/authorizer-cache');
};
