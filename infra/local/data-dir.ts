// One process at a time owns a data directory: two LevelDB writers would corrupt it.
// The owner writes a lock file naming itself and, when it is the server, the address
// of its embedded DynamoDB, through which the key tool reaches the same data (with
// the credential kept beside it: embedded-dynamodb.ts).
//
// The data is its user's alone (docs/api.md): the directory is 0700 and everything in
// it 0600, what was there before included; one another user owns or may write is refused.

import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface LockInfo {
  pid: number;
  /**
   * When that process started (processStart): a PID is reused, by the next boot most likely, and
   * a lock whose PID now names another process is stale. Absent where there is no /proc.
   */
  started?: string;
  owner: 'server' | 'key tool';
  /** Set by the server once its embedded DynamoDB listens. */
  dynamodbAddress?: string;
  /** Its Unix socket (dynamodb-socket.ts), set with the address. */
  dynamodbSocket?: string;
  /** Set by the server once its management endpoint listens (infra/local/management.ts). */
  managementEndpoint?: string;
}

export class DataDirInUseError extends Error {
  readonly holder: LockInfo;
  constructor(dir: string, holder: LockInfo) {
    super(
      `the data directory ${dir} is in use by the ${holder.owner} (pid ${holder.pid}); stop it first or set PETSTORE_DATA_DIR to another directory`,
    );
    this.holder = holder;
  }
}

const lockPath = (dir: string) => join(dir, 'owner.lock');

/** Linux's /proc/<pid>/stat fields after the command name (in parentheses, which may itself hold spaces). */
const statFields = (pid: number): string[] | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined; // no /proc (macOS), or no such process
  }
};

const bootId = (): string | undefined => {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return undefined;
  }
};

/**
 * What tells process `pid` from a later one with the same PID: the boot it runs in and its start
 * time in clock ticks since that boot (proc(5), /proc/<pid>/stat field 22). Undefined without /proc.
 */
export const processStart = (pid: number): string | undefined => {
  const started = statFields(pid)?.[19]; // field 22; the list starts at field 3, the state
  const boot = bootId();
  return started === undefined || boot === undefined ? undefined : `${boot}/${started}`;
};

/** True when `holder` names a live process that is the one that wrote the lock. */
const isAlive = ({ pid, started }: LockInfo): boolean => {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const fields = statFields(pid);
  if (!fields) return true; // no /proc (macOS): signal 0 decides alone
  // A zombie (exited, not yet reaped by its parent) still answers signal 0 but holds nothing.
  if (fields[0] === 'Z') return false;
  return started === undefined || started === processStart(pid);
};

/** The live owner of `dir`, if any: a lock whose process is gone, or whose PID another process now has, is stale. */
export const readOwner = (dir: string): LockInfo | undefined => {
  try {
    const info = JSON.parse(readFileSync(lockPath(dir), 'utf8')) as LockInfo;
    return isAlive(info) ? info : undefined;
  } catch {
    return undefined;
  }
};

export interface DataDirLock {
  dir: string;
  update(info: Partial<LockInfo>): void;
  release(): void;
  /** For a start that failed: releases the directory and removes it if this lock created it. */
  abandon(): void;
}

/** A data directory someone else could have written: its secrets would be theirs. */
export class DataDirUnsafeError extends Error {}

/**
 * Refuses `path` (and, for a directory, everything in it) when it is another user's or
 * writable by others, as OpenSSH refuses such a key file: anyone may make a directory in
 * the system's temporary directory first, with a cursor secret, a DynamoDB credential and a
 * development key of their choosing. What is only readable by others is tightened (data
 * directories from before were 0755 with 0644 files).
 */
const guard = (dir: string, path: string, uid: number | undefined): void => {
  const stat = lstatSync(path);
  const unsafe = (why: string, remedy = '') =>
    new DataDirUnsafeError(
      `refusing the data directory ${dir}: ${path} ${why}, who could have planted its secrets; ${remedy}give PETSTORE_DATA_DIR a directory of your own`,
    );
  if (uid !== undefined && stat.uid !== uid) throw unsafe(`belongs to another user (uid ${stat.uid})`);
  if (stat.isSymbolicLink()) return; // its mode is not its own; what it points at is not ours to change
  if (stat.mode & 0o022)
    throw unsafe(
      `is writable by other users (mode ${(stat.mode & 0o777).toString(8)})`,
      `if all in it is yours, chmod -R go-w ${dir}; else `,
    );
  if (stat.mode & 0o077) chmodSync(path, stat.mode & 0o700);
  if (stat.isDirectory()) for (const name of readdirSync(path)) guard(dir, join(path, name), uid);
};

/** Throws DataDirUnsafeError (guard) when `dataDir` exists and is not its user's alone: before anything in it is read. */
export const refuseUnsafeDataDir = (dataDir: string): void => {
  const dir = resolve(dataDir);
  if (existsSync(dir)) guard(dir, dir, process.getuid?.());
};

/**
 * Makes `dir` its user's alone, or throws DataDirUnsafeError (guard): what exists is checked
 * and tightened, and this process's umask keeps what it creates from now on so, LevelDB's
 * files included, which the store creates with the umask's mode.
 */
const keepPrivate = (dir: string): string | undefined => {
  process.umask(0o077);
  const created = mkdirSync(dir, { recursive: true, mode: 0o700 });
  guard(dir, dir, process.getuid?.());
  return created;
};

/** Takes `dir` for this process, or throws DataDirInUseError naming its live owner (DataDirUnsafeError: guard). */
export const lockDataDir = (dataDir: string, owner: LockInfo['owner']): DataDirLock => {
  const dir = resolve(dataDir);
  const created = keepPrivate(dir); // the first directory made, when `dir` or its parents were new
  const started = processStart(process.pid);
  let info: LockInfo = { pid: process.pid, ...(started && { started }), owner };
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(lockPath(dir), JSON.stringify(info), { flag: 'wx' }); // atomic: fails if it exists
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
      const holder = readOwner(dir);
      if (holder) throw new DataDirInUseError(dir, holder);
      rmSync(lockPath(dir), { force: true }); // left behind by a process that died
    }
  }
  const release = () => {
    if (readOwner(dir)?.pid === process.pid) rmSync(lockPath(dir), { force: true });
  };
  return {
    dir,
    update(changes) {
      info = { ...info, ...changes };
      writeFileSync(lockPath(dir), JSON.stringify(info));
    },
    release,
    abandon() {
      release();
      if (created) rmSync(created, { recursive: true, force: true });
    },
  };
};

/** A secret kept with the data, so that cursors issued before a restart stay valid. */
export const persistentSecret = (dir: string, name: string): string => {
  const file = join(dir, name);
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    const secret = randomBytes(32).toString('hex');
    writeFileSync(file, secret, { mode: 0o600 });
    return secret;
  }
};
