// Stage `local`: the embedded DynamoDB, the functions loaded as Lambda would load
// them, and the emulated API Gateway in front. `npm start` (server.ts) runs one;
// benchmarks start one in-process.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_VERSION_PATH, AUTHORIZER_ENTRY, routes } from '../../shared/api/routes.ts';
import type { KeyRecord } from '../../shared/domain/stores.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { createKeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { keysTable } from '../../shared/dynamodb/tables.ts';
import type { AccessLogLine } from '../access-log.ts';
import type { KeyLimits } from '../stages.ts';
import { createAuthorizerCache } from './authorizer-cache.ts';
import { LOCAL_DYNAMODB_REQUEST_TIMEOUT_MS, LOCAL_FUNCTION_CONCURRENCY, LOCAL_PIPELINE_DEPTH } from './config.ts';
import { oneRequestAtATimePerConnection } from './connections.ts';
import { lockDataDir, persistentSecret } from './data-dir.ts';
import { developmentKey } from './development-key.ts';
import { ensureTables, startEmbeddedDynamoDB } from './embedded-dynamodb.ts';
import { functionEnvironment } from './function-environment.ts';
import { answerClientError, answerConnect, createGateway, type GatewayOptions } from './gateway.ts';
import { markCleanShutdown, repairAfterCrash } from './index-repair.ts';
import { type FunctionConcurrency, loadFunction, prepareRuntime } from './lambda-runtime.ts';
import { startManagementEndpoint } from './management.ts';

export const STAGE = 'local';

export interface LocalStageOptions {
  port: number;
  host: string;
  dataDir: string;
  /** A key to register and accept; else the data directory's development key (development-key.ts). */
  apiKey?: string | undefined;
  authorizerCacheTtlSeconds: number;
  throttle: { rate: number; burst: number };
  /** Each function's concurrency and how many invocations may wait for it (deployed: the account's 1000). */
  functionConcurrency?: FunctionConcurrency;
  /** Requests one connection may have waiting (pipelined) before the server stops reading it. */
  pipelineDepth?: number;
  /** Each key's limits (API Gateway's usage plan); undefined: none, though a key still needs its API key. */
  keyLimits?: KeyLimits | undefined;
  /** The functions' DynamoDB request timeout (deployed: DYNAMODB_TIME_BUDGET's): the embedded store shares this process's CPU. */
  dynamodbRequestTimeoutMs?: number;
  logLevel: string;
  accessLog?: (line: AccessLogLine) => void;
}

export interface LocalStage {
  baseUrl: string;
  key: string;
  keyRecord: KeyRecord;
  dataDir: string;
  dynamodbEndpoint: string;
  /** Index entries without their item that a crash had left, removed at start (index-repair.ts). */
  repairedIndexEntries: number;
  /** Stops accepting, finishes requests in flight, closes the store and frees the data directory. */
  close(): Promise<void>;
}

/** Throws DataDirInUseError when another process holds `dataDir`. One stage per process. */
export const startLocalStage = async (options: LocalStageOptions): Promise<LocalStage> => {
  await prepareRuntime(); // before the first SDK call (ensureTables)
  const lock = lockDataDir(options.dataDir, 'server');
  const dynamodb = await startEmbeddedDynamoDB(lock.dir);
  lock.update({ dynamodbEndpoint: dynamodb.endpoint });
  await ensureTables(dynamodb.endpoint);
  const repaired = await repairAfterCrash(lock.dir, dynamodb.endpoint);

  Object.assign(
    process.env,
    functionEnvironment({
      dynamodbEndpoint: dynamodb.endpoint,
      stage: STAGE,
      logLevel: options.logLevel,
      cursorSecret: persistentSecret(lock.dir, 'cursor-secret'),
      dynamodbRequestTimeoutMs: options.dynamodbRequestTimeoutMs ?? LOCAL_DYNAMODB_REQUEST_TIMEOUT_MS,
      keyLimits: options.keyLimits,
    }),
  );

  const keys = createKeysRepository(createDocumentClient(), keysTable.name);
  const { key, keyRecord } = options.apiKey
    ? { key: options.apiKey, keyRecord: await keys.register(options.apiKey, 'PETSTORE_API_KEY') }
    : await developmentKey(lock.dir, keys);
  // Every local key is in the local usage plan: keys issued before there were plans get their API key now.
  await keys.assignUsageKeys();

  const functionConcurrency = options.functionConcurrency ?? LOCAL_FUNCTION_CONCURRENCY;
  const functions = Object.fromEntries(
    await Promise.all(
      routes.map(async (r) => [
        r.operationId,
        await loadFunction(`petstore-${STAGE}-${r.operationId}`, r.entry, functionConcurrency),
      ]),
    ),
  ) as GatewayOptions['functions'];
  const authorizerCache: GatewayOptions['authorizerCache'] = createAuthorizerCache(options.authorizerCacheTtlSeconds);
  const gateway = createGateway({
    stage: STAGE,
    functions,
    authorizer: await loadFunction(`petstore-${STAGE}-authorizer`, AUTHORIZER_ENTRY, functionConcurrency),
    authorizerCache,
    throttle: options.throttle,
    keyLimits: options.keyLimits,
    accessLog: options.accessLog ?? (() => undefined),
  });
  const server = createServer(
    // Node would refuse an HTTP/1.1 request without Host with a bare 400 and no body; the gateway
    // answers it like any other (its routes do not depend on Host), so it gets the Error body too.
    { requireHostHeader: false },
    oneRequestAtATimePerConnection(gateway, options.pipelineDepth ?? LOCAL_PIPELINE_DEPTH),
  );
  server.on('clientError', answerClientError);
  server.on('connect', answerConnect);
  const management = await startManagementEndpoint(lock.dir, {
    flushAuthorizerCache: () => authorizerCache.flush(),
  });
  lock.update({ dynamodbEndpoint: dynamodb.endpoint, managementEndpoint: management.endpoint });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => resolve());
    });
  } catch (error) {
    await management.close();
    await dynamodb.close();
    lock.release();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;

  return {
    baseUrl: `http://${host}:${port}${API_VERSION_PATH}`,
    key,
    keyRecord,
    dataDir: lock.dir,
    dynamodbEndpoint: dynamodb.endpoint,
    repairedIndexEntries: repaired,
    close: async () => {
      const force = setTimeout(() => server.closeAllConnections(), 5000).unref();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      clearTimeout(force);
      await management.close();
      await dynamodb.close(); // flushes and closes the store
      markCleanShutdown(lock.dir);
      lock.release();
    },
  };
};
