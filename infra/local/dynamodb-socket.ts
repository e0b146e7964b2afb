// The embedded DynamoDB's own door: a Unix domain socket in the data directory, through which the
// server's functions and the key tool reach the store. The data directory is its user's alone
// (0700, data-dir.ts), so connecting to a socket inside it takes that user's permissions: the
// file system does the check, as it does for PostgreSQL's and OpenSSH's sockets, and no request
// is verified on this path. The signature check of dynamodb-credential.ts (~95 µs a request, the
// largest piece of what a request cost over the bare server: docs/performance.md) stays on the
// TCP port only, for a developer's tools.
//
// A socket's path is limited (108 bytes on Linux, 104 on macOS); a data directory too deep for it
// gets its socket in a new private directory (0700) of the system's temporary directory instead,
// named in the lock file, and a client checks that directory is its user's alone before it
// connects (ownSocket). Windows has no such sockets here: there the store keeps TCP alone.
import { lstatSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const SOCKET_NAME = 'dynamodb.sock';
/** What every platform with Unix sockets takes (macOS's sun_path: 104 bytes with its terminator). */
const MAX_SOCKET_PATH_BYTES = 100;

export interface StoreSocket {
  path: string;
  close(): Promise<void>;
}

/** Where the store's socket goes for `dataDir`, and what to remove after it. */
const socketPlace = (dataDir: string): { path: string; madeDir?: string } => {
  const inDir = join(dataDir, SOCKET_NAME);
  if (Buffer.byteLength(inDir) <= MAX_SOCKET_PATH_BYTES) return { path: inDir };
  const madeDir = mkdtempSync(join(tmpdir(), 'petstore-')); // 0700, as mkdtemp makes it
  return { path: join(madeDir, SOCKET_NAME), madeDir };
};

/** True where the store can have a socket. */
export const socketsSupported = process.platform !== 'win32';

/**
 * Serves `store` (dynalite's request listener) on a Unix socket for `dataDir`'s owner. The caller
 * holds the data directory's lock, so a socket file left there by a process that died is removed.
 */
export const listenOnSocket = async (dataDir: string, store: RequestListener): Promise<StoreSocket> => {
  const { path, madeDir } = socketPlace(dataDir);
  rmSync(path, { force: true });
  const server: Server = createServer(store);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  return {
    path,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          rmSync(madeDir ?? path, { recursive: true, force: true }); // Node removes the file itself; a made directory too
          resolve();
        });
        server.closeAllConnections();
      }),
  };
};

/**
 * True when `path` is a socket of this user's in a directory that is this user's alone: only a
 * process of this user can have made it, and only such a process can be listening on it. Checked
 * before the key tool sends its first request, so that a stale lock never leads it to another
 * user's socket (another user may make a directory of the same name once ours is gone).
 */
export const ownSocket = (path: string): boolean => {
  const uid = process.getuid?.();
  try {
    const dir = lstatSync(dirname(path));
    const socket = lstatSync(path);
    return (
      dir.isDirectory() &&
      (dir.mode & 0o077) === 0 &&
      socket.isSocket() &&
      (uid === undefined || (dir.uid === uid && socket.uid === uid))
    );
  } catch {
    return false; // gone: the server stopped
  }
};
