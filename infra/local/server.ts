// `npm start`: the API as stage `local`, on one machine, with an embedded DynamoDB
// whose data survives restarts. Every knob is an environment variable (README).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { z } from 'zod';
import { createDocumentClient } from '../../shared/dynamodb.ts';
import { createKeysRepository } from '../../shared/keys-repository.ts';
import { KEY_PATTERN } from '../../shared/keys.ts';
import { AUTHORIZER_ENTRY, API_VERSION_PATH, routes, type OperationId } from '../../shared/routes.ts';
import { keysTable, tables } from '../../shared/tables.ts';
import { createGateway, type GatewayOptions } from './gateway.ts';
import { DataDirInUseError, lockDataDir, persistentSecret } from './data-dir.ts';
import { ensureTables, LOCAL_AWS_ENV, startEmbeddedDynamoDB } from './embedded-dynamodb.ts';
import { loadFunction, prepareRuntime } from './lambda-runtime.ts';

export const STAGE = 'local';

const Config = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  PETSTORE_DATA_DIR: z.string().min(1).default('.data'),
  PETSTORE_API_KEY: z.string().regex(KEY_PATTERN, 'must be pet_ followed by at least 32 base62 characters').optional(),
  PETSTORE_AUTHORIZER_CACHE_TTL: z.coerce.number().int().min(0).max(3600).default(0),
  LOG_LEVEL: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']).default('INFO'),
});

const fail = (message: string): never => {
  console.error(`npm start: ${message}`);
  process.exit(1);
};

const parsed = Config.safeParse(process.env);
if (!parsed.success) fail(parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; '));
const config = parsed.data!;

let lock: ReturnType<typeof lockDataDir>;
try {
  lock = lockDataDir(config.PETSTORE_DATA_DIR, 'server');
} catch (error) {
  fail(error instanceof DataDirInUseError ? error.message : String(error));
}
const dynamodb = await startEmbeddedDynamoDB(lock!.dir);
lock!.update({ dynamodbEndpoint: dynamodb.endpoint });
await ensureTables(dynamodb.endpoint);

// The functions' environment, as the stack gives it to them deployed.
Object.assign(process.env, LOCAL_AWS_ENV, {
  AWS_ENDPOINT_URL_DYNAMODB: dynamodb.endpoint,
  CURSOR_SECRET: persistentSecret(lock!.dir, 'cursor-secret'),
  POWERTOOLS_SERVICE_NAME: 'petstore',
  POWERTOOLS_LOG_LEVEL: config.LOG_LEVEL,
  POWERTOOLS_METRICS_NAMESPACE: `PetStore/${STAGE}`,
  // EMF lines only mean something to CloudWatch; set to false to see them.
  POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED ?? 'true',
  ...Object.fromEntries(tables.map((table) => [table.envVar, table.name])),
});

const keys = createKeysRepository(createDocumentClient(), keysTable.name);
const key = config.PETSTORE_API_KEY ?? (await keys.create(`npm start ${new Date().toISOString()}`)).key;
const keyRecord = await keys.register(key, 'PETSTORE_API_KEY');
if (keyRecord.revokedAt) console.warn(`warning: PETSTORE_API_KEY (${keyRecord.keyId}) was revoked at ${keyRecord.revokedAt} and stays refused`);

await prepareRuntime();
const functions = Object.fromEntries(
  await Promise.all(routes.map(async (r) => [r.operationId, await loadFunction(`petstore-${STAGE}-${r.operationId}`, r.entry)])),
) as GatewayOptions['functions'] & Record<OperationId, unknown>;
const gateway = createGateway({
  stage: STAGE,
  functions,
  authorizer: await loadFunction(`petstore-${STAGE}-authorizer`, AUTHORIZER_ENTRY),
  authorizerCacheTtlSeconds: config.PETSTORE_AUTHORIZER_CACHE_TTL,
  accessLog: (line) => process.stdout.write(`${JSON.stringify({ accessLog: line })}\n`),
});

const server = createServer(gateway);
server.on('error', (error) => {
  console.error(`npm start: cannot listen on ${config.HOST}:${config.PORT}: ${error.message}`);
  void stop(1);
});
server.listen(config.PORT, config.HOST, () => {
  const { port } = server.address() as AddressInfo;
  const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  const baseUrl = `http://${host}:${port}${API_VERSION_PATH}`;
  console.log(
    [
      `Pet Store API (stage ${STAGE}) listening at ${baseUrl}`,
      `API key (${keyRecord.keyId}): ${key}`,
      `Try: curl -H 'Authorization: Bearer ${key}' ${baseUrl}/pets`,
      `Data: ${resolve(lock!.dir)}. Stop with Ctrl+C.`,
    ].join('\n'),
  );
});

let stopping = false;
const stop = async (code: number) => {
  if (stopping) return;
  stopping = true;
  console.log('stopping: finishing requests in flight');
  const force = setTimeout(() => server.closeAllConnections(), 5000).unref();
  await new Promise<void>((done) => server.close(() => done()));
  clearTimeout(force);
  await dynamodb.close(); // flushes and closes the store
  lock!.release();
  console.log('stopped');
  process.exit(code);
};
process.once('SIGINT', () => void stop(0));
process.once('SIGTERM', () => void stop(0));
