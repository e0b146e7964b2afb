// Stage `local`: the embedded DynamoDB, the functions loaded as Lambda would load
// them, and the emulated API Gateway in front. `npm start` (server.ts) runs one;
// benchmarks start one in-process.

import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo, Server as NetServer } from 'node:net';
import { join, resolve } from 'node:path';
import { API_VERSION_PATH, AUTHORIZER_ENTRY, routes } from '../../shared/api/routes.ts';
import type { KeyRecord } from '../../shared/domain/stores.ts';
import { createDocumentClient } from '../../shared/dynamodb/document-client.ts';
import { createKeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { keysTable } from '../../shared/dynamodb/tables.ts';
import type { AccessLogLine } from '../access-log.ts';
import type { KeyLimits } from '../stages.ts';
import { createAuthorizerCache } from './authorizer-cache.ts';
import { LOCAL_DYNAMODB_REQUEST_TIMEOUT_MS, LOCAL_FUNCTION_CONCURRENCY, LOCAL_PIPELINE_DEPTH } from './config.ts';
import { connectionBudget, limitConnections } from './connection-limit.ts';
import { servePipelined } from './connections.ts';
import { type DataDirLock, lockDataDir, persistentSecret } from './data-dir.ts';
import { developmentKey } from './development-key.ts';
import { type EmbeddedDynamoDB, ensureTables, startEmbeddedDynamoDB } from './embedded-dynamodb.ts';
import { functionEnvironment } from './function-environment.ts';
import { createGateway, type GatewayOptions } from './gateway.ts';
import { answerClientError, answerConnect } from './gateway-answers.ts';
import { reduceMemoryWhenIdle } from './idle-memory.ts';
import { markCleanShutdown, repairAfterCrash } from './index-repair.ts';
import type { LocalKeyLimits } from './key-limits.ts';
import { KEY_USAGE_FILE } from './key-usage.ts';
import { type FunctionConcurrency, loadFunction, prepareRuntime } from './lambda-runtime.ts';
import { type ManagementEndpoint, startManagementEndpoint } from './management.ts';
import { osUser } from './os-user.ts';
import { awaitingBody, HEADERS_TIMEOUT } from './request-body.ts';

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
  /** N of the status index (PETSTORE_INDEX_SHARDS); 1 by default. May only grow for a data directory. */
  statusIndexShards?: number;
  /** Seconds a GET /v1/pets page is cached (PETSTORE_LISTING_CACHE_TTL, listingCacheTtlSeconds deployed); 0: none. */
  listingCacheTtlSeconds?: number;
  /** Seconds idle after which the server gives back the memory load grew (PETSTORE_IDLE_MEMORY_SECONDS); 0 or none: never. */
  idleMemorySeconds?: number;
  /** Client connections kept open at once (PETSTORE_MAX_CONNECTIONS); none: the open-files limit's share (connection-limit.ts). */
  maxConnections?: number | undefined;
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

/** What the gateway side needs of the options (the dev server's generations take the same). */
export type GatewaySettings = Pick<
  LocalStageOptions,
  | 'dataDir'
  | 'authorizerCacheTtlSeconds'
  | 'throttle'
  | 'functionConcurrency'
  | 'pipelineDepth'
  | 'keyLimits'
  | 'listingCacheTtlSeconds'
  | 'idleMemorySeconds'
  | 'maxConnections'
  | 'accessLog'
>;

export interface StageServer {
  /** Not listening yet. */
  server: Server;
  flushAuthorizerCache(): void;
  /** Stops accepting and finishes the requests in flight. */
  close(): Promise<void>;
}

/**
 * `listener` once `opened` resolves; the requests that come before wait for it (their sockets
 * are closed if it rejects). The server listens before its key is registered (so that a start
 * that cannot listen registers and mints nothing), and a client that called as soon as the port
 * took connections got 401 for the very key it had given the server in PETSTORE_API_KEY.
 */
const heldUntil = (opened: Promise<void>, listener: RequestListener): RequestListener => {
  let current: RequestListener = (req, res) => {
    opened.then(
      () => listener(req, res),
      () => res.destroy(),
    );
  };
  opened.then(
    () => {
      current = listener; // from then on, nothing between the server and the gateway
    },
    () => undefined,
  );
  return (req, res) => current(req, res);
};

/**
 * The stage's HTTP side: the functions, loaded as Lambda loads them (from the process's
 * environment: functionEnvironment), behind the emulated gateway.
 */
export const createStageServer = async (options: GatewaySettings, opened?: Promise<void>): Promise<StageServer> => {
  const functionConcurrency = options.functionConcurrency ?? LOCAL_FUNCTION_CONCURRENCY;
  const functions = Object.fromEntries(
    await Promise.all(
      routes.map(async (r) => [
        r.operationId,
        await loadFunction(`petstore-${STAGE}-${r.operationId}`, r.entry, functionConcurrency),
      ]),
    ),
  ) as GatewayOptions['functions'];
  // The day's counts are kept with the data, as a deployed usage plan's outlive a deployment.
  const keyLimits: LocalKeyLimits | undefined = options.keyLimits && {
    ...options.keyLimits,
    usageFile: join(resolve(options.dataDir), KEY_USAGE_FILE),
  };
  const authorizerCache: GatewayOptions['authorizerCache'] = createAuthorizerCache(options.authorizerCacheTtlSeconds);
  const accessLog = options.accessLog ?? (() => undefined);
  const gateway = createGateway({
    stage: STAGE,
    functions,
    authorizer: await loadFunction(`petstore-${STAGE}-authorizer`, AUTHORIZER_ENTRY, functionConcurrency),
    authorizerCache,
    throttle: options.throttle,
    keyLimits,
    listingCacheTtlSeconds: options.listingCacheTtlSeconds,
    accessLog,
  });
  // Node would refuse an HTTP/1.1 request without Host with a bare 400 and no body; the gateway
  // answers it like any other (its routes do not depend on Host), so it gets the Error body too.
  const server = createServer({ requireHostHeader: false, ...HEADERS_TIMEOUT });
  const listener = opened ? heldUntil(opened, gateway) : gateway;
  const pipelines = servePipelined(server, listener, options.pipelineDepth ?? LOCAL_PIPELINE_DEPTH);
  // What Node answers outside a request goes after the answers to the requests before it.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) =>
    error.code === 'ECONNRESET'
      ? socket.destroy()
      : pipelines.afterAnswers(socket, (broken) => answerClientError(error, socket, accessLog, broken)),
  );
  server.on('connect', (req, socket) => pipelines.afterAnswers(socket, () => answerConnect(req, socket, accessLog)));
  const max = options.maxConnections ?? connectionBudget().api;
  limitConnections(server, {
    max,
    name: 'API',
    requestEvents: ['request', 'checkContinue', 'checkExpectation'],
    awaitingBody,
  });
  if (options.idleMemorySeconds) reduceMemoryWhenIdle(server, { idleMs: options.idleMemorySeconds * 1000 });
  return {
    server,
    flushAuthorizerCache: () => authorizerCache.flush(),
    close: async () => {
      await pipelines.close();
    },
  };
};

export interface LocalData {
  dynamodb: EmbeddedDynamoDB;
  repairedIndexEntries: number;
  /** What the functions' environment needs beyond the options: the store's URL and the cursor secret. */
  functionEnvironment: Record<string, string>;
  /** The key to print: PETSTORE_API_KEY's, else the data directory's development key (minted once). */
  key(): Promise<{ key: string; keyRecord: KeyRecord }>;
  /** Closes the store (flushing it) and marks the directory as cleanly stopped. */
  close(): Promise<void>;
}

/**
 * The data side of the stage, in the locked directory: the embedded DynamoDB with its tables,
 * repaired after a crash, and the functions' environment (set on this process too).
 */
export const openLocalData = async (
  lock: DataDirLock,
  options: Pick<
    LocalStageOptions,
    'apiKey' | 'logLevel' | 'dynamodbRequestTimeoutMs' | 'keyLimits' | 'statusIndexShards'
  >,
): Promise<LocalData> => {
  const dynamodb = await startEmbeddedDynamoDB(lock.dir);
  lock.update({ dynamodbAddress: dynamodb.address, dynamodbSocket: dynamodb.socket });
  await ensureTables(dynamodb.endpoint);
  const repaired = await repairAfterCrash(lock.dir, dynamodb.endpoint);
  const environment = functionEnvironment({
    dynamodbEndpoint: dynamodb.endpoint,
    stage: STAGE,
    logLevel: options.logLevel,
    cursorSecret: persistentSecret(lock.dir, 'cursor-secret'),
    dynamodbRequestTimeoutMs: options.dynamodbRequestTimeoutMs ?? LOCAL_DYNAMODB_REQUEST_TIMEOUT_MS,
    keyLimits: options.keyLimits,
    statusIndexShards: options.statusIndexShards,
  });
  Object.assign(process.env, environment);
  return {
    dynamodb,
    repairedIndexEntries: repaired,
    functionEnvironment: environment,
    key: async () => {
      const keys = createKeysRepository(createDocumentClient(), keysTable.name);
      const { key, keyRecord } = options.apiKey
        ? {
            key: options.apiKey,
            keyRecord: await keys.register(options.apiKey, 'PETSTORE_API_KEY', {
              by: osUser(),
              reason: 'npm start: PETSTORE_API_KEY',
            }),
          }
        : await developmentKey(lock.dir, keys);
      // Every local key is in the local usage plan: keys issued before there were plans get their API key now.
      await keys.assignUsageKeys();
      return { key, keyRecord };
    },
    close: async () => {
      await dynamodb.close(); // flushes and closes the store
      markCleanShutdown(lock.dir);
    },
  };
};

/** Listens on `port` and `host`; rejects (EADDRINUSE…) when it cannot. */
export const listen = (server: NetServer, port: number, host: string): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });

export const baseUrlOf = (server: NetServer, host: string): string => {
  const { port } = server.address() as AddressInfo;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}${API_VERSION_PATH}`;
};

/** Throws DataDirInUseError when another process holds `dataDir`. One stage per process. */
export const startLocalStage = async (options: LocalStageOptions): Promise<LocalStage> => {
  await prepareRuntime(); // before the first SDK call (ensureTables)
  const lock = lockDataDir(options.dataDir, 'server');
  let data: LocalData | undefined;
  let stage: StageServer | undefined;
  let management: ManagementEndpoint | undefined;
  const opened = Promise.withResolvers<void>(); // requests wait for the key (heldUntil)
  opened.promise.catch(() => undefined); // a start that fails before the server exists has no one to tell
  try {
    data = await openLocalData(lock, options);
    stage = await createStageServer(options, opened.promise);
    // Before the key: a start that cannot listen mints no development key. If it fails, a
    // directory this start created is removed, and one from before is left as it was.
    await listen(stage.server, options.port, options.host);
    const { key, keyRecord } = await data.key();
    management = await startManagementEndpoint(lock.dir, {
      flushAuthorizerCache: stage.flushAuthorizerCache,
    });
    lock.update({ managementEndpoint: management.endpoint });
    opened.resolve();
    return {
      baseUrl: baseUrlOf(stage.server, options.host),
      key,
      keyRecord,
      dataDir: lock.dir,
      dynamodbEndpoint: data.dynamodb.endpoint,
      repairedIndexEntries: data.repairedIndexEntries,
      close: async () => {
        await stage!.close();
        await management!.close();
        await data!.close();
        lock.release();
      },
    };
  } catch (error) {
    opened.reject(error);
    stage?.server.close();
    await management?.close();
    await data?.close();
    lock.abandon();
    throw error;
  }
};
