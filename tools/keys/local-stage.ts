// The key tool on stage `local`: through the running server's embedded DynamoDB when a
// server holds the data directory, else by opening the directory itself (one process
// at a time: two LevelDB writers would corrupt it). The server is the lock's only if the
// lock's process is the one that wrote it (data-dir.ts: its start time), and the tool
// writes only through the server's Unix socket, which only this user's server can have made
// (dynamodb-socket.ts): never to a TCP port that another user may have bound since.

import { Config, keyLimitsOf } from '../../infra/local/config.ts';
import {
  DataDirInUseError,
  DataDirUnsafeError,
  lockDataDir,
  readOwner,
  refuseUnsafeDataDir,
} from '../../infra/local/data-dir.ts';
import { ownSocket, socketsSupported } from '../../infra/local/dynamodb-socket.ts';
import { ensureTables, runningDynamoDB, startEmbeddedDynamoDB } from '../../infra/local/embedded-dynamodb.ts';
import { dynamodbEnvironment } from '../../infra/local/function-environment.ts';
import { flushAuthorizerCache } from '../../infra/local/management.ts';
import type { KeyLimits } from '../../infra/stages.ts';
import type { KeysRepository } from '../../shared/domain/stores.ts';
import { createDocumentClient } from '../../shared/dynamodb/document-client.ts';
import { createKeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { keysTable } from '../../shared/dynamodb/tables.ts';
import { revokingFlushes } from './authorizer-cache.ts';
import { fail } from './fail.ts';

const RESTART = 'restart the local server (npm start)';

export /** Runs `work` against the local stage's keys, through the running server's DynamoDB when there is one. */
const withLocalKeys = async <T>(work: (keys: KeysRepository) => Promise<T>): Promise<T> => {
  // Empty means unset: resolving "" would take the current directory as the data directory.
  const dataDir = process.env.PETSTORE_DATA_DIR || '.data';
  try {
    refuseUnsafeDataDir(dataDir); // before its lock file or the embedded DynamoDB's credential is read
  } catch (error) {
    return fail((error as Error).message);
  }
  const owner = readOwner(dataDir);
  if (owner?.owner === 'server') {
    const socket = owner.dynamodbSocket;
    // Where there are no Unix sockets (Windows) the store has TCP alone, and the lock's start time vouches for it.
    const verified = socketsSupported;
    if (verified && owner.dynamodbAddress && !(socket && ownSocket(socket)))
      fail(
        socket
          ? `the local server's socket ${socket} is not in a directory of yours alone, so it may not be the server's; ${RESTART}`
          : `the local server (pid ${owner.pid}) has no socket of its own to be verified by; ${RESTART}`,
      );
    const dynamodb = runningDynamoDB(dataDir, { verified });
    if (!dynamodb) fail('the local server is starting; try again in a moment');
    // A revoke flushes the running server's authorizer cache before it returns, as a deployed
    // stage's flushes API Gateway's. Without a management endpoint yet, the server is not
    // serving, and its cache is empty.
    const { managementEndpoint } = owner;
    const keys = localKeys(dynamodb!);
    const flush = () => flushAuthorizerCache(dataDir, managementEndpoint!);
    try {
      return await work(managementEndpoint ? revokingFlushes(keys, flush, 'local', RESTART) : keys);
    } catch (error) {
      // Its DynamoDB's own errors: the server is suspended (Ctrl+Z), overloaded or stopping.
      const { name, message } = error as Error;
      return fail(`the local server (pid ${owner.pid}) did not answer (${name}: ${message}); is it running? try again`);
    }
  }
  let lock: ReturnType<typeof lockDataDir>;
  try {
    lock = lockDataDir(dataDir, 'key tool');
  } catch (error) {
    const known = error instanceof DataDirInUseError || error instanceof DataDirUnsafeError;
    return fail(known ? error.message : String(error));
  }
  const dynamodb = await startEmbeddedDynamoDB(lock!.dir);
  try {
    await ensureTables(dynamodb.endpoint);
    return await work(localKeys(dynamodb.endpoint));
  } finally {
    await dynamodb.close();
    lock!.release();
  }
};

/** `url`: the embedded DynamoDB's, with its credential (infra/local/dynamodb-credential.ts). */
const localKeys = (url: string): KeysRepository => {
  Object.assign(process.env, dynamodbEnvironment(url));
  return createKeysRepository(createDocumentClient(), keysTable.name);
};

/** The server's own variables (README), as this shell has them. */
const localConfig = (): Config => {
  const parsed = Config.safeParse(process.env);
  if (!parsed.success) return fail(parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; '));
  return parsed.data;
};

/** The local stage's limits per key. */
export const localKeyLimits = async (): Promise<KeyLimits> => keyLimitsOf(localConfig());

/** The local stage's authorizer cache TTL, in seconds. */
export const localAuthorizerCacheTtl = (): number => localConfig().PETSTORE_AUTHORIZER_CACHE_TTL;

/**
 * How long the authorizer cache of the server running now may keep an answer: 0 when none runs,
 * since a server's cache starts empty, so no cached answer outlives the server that held it.
 */
export const localServerCacheTtl = (): number =>
  readOwner(process.env.PETSTORE_DATA_DIR || '.data')?.owner === 'server' ? localAuthorizerCacheTtl() : 0;
