// Each key's requests of the current UTC day, kept with the data (`key-usage.json` in the data
// directory), so that the daily quota does not start over at every restart: a deployed usage
// plan's count lives in API Gateway, not in the process. Counts are written a moment after they
// change (the file replaced whole, by rename) and at exit; a kill -9 may lose that moment's, a
// few requests more for the day, never a file half-written. `npm run dev`'s generations share the
// file: each adds what it counted since its last write to what the file holds. Keys are named by
// a hash of their usage key, which is a credential of the usage plan.
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

export const KEY_USAGE_FILE = 'key-usage.json';
const WRITE_AFTER_MS = 200;
const DAY_MS = 86_400_000;

interface Saved {
  day: number;
  used: Record<string, number>;
}

export interface KeyUsage {
  /** The key's count today as last saved (by this process or another one). */
  saved(usageKey: string, day: number): number;
  /** One more request of the key on `day`. */
  count(usageKey: string, day: number): void;
}

const names = new Map<string, string>();
/** Every request is counted under its key's name: the hash is made once per key (a local stage has a handful). */
const nameOf = (usageKey: string) => {
  let name = names.get(usageKey);
  if (name === undefined) {
    name = createHash('sha256').update(usageKey).digest('base64url').slice(0, 22);
    if (names.size >= 10_000) names.clear(); // bounded, whatever keys come and go
    names.set(usageKey, name);
  }
  return name;
};

export const utcDay = (ms: number): number => Math.floor(ms / DAY_MS);

/** Counts kept in `file`; without one, in memory only. */
export const keyUsage = (file: string | undefined): KeyUsage => {
  const read = (): Saved => {
    if (!file) return { day: -1, used: {} };
    try {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as Saved;
      return typeof saved.day === 'number' && typeof saved.used === 'object' ? saved : { day: -1, used: {} };
    } catch {
      return { day: -1, used: {} }; // none yet
    }
  };
  let known = read();
  let pending: Saved = { day: -1, used: {} };
  let timer: NodeJS.Timeout | undefined;

  const write = () => {
    clearTimeout(timer);
    timer = undefined;
    if (!file || Object.keys(pending.used).length === 0) return;
    const onDisk = read();
    const base = onDisk.day === pending.day ? onDisk.used : {};
    const used = { ...base };
    for (const [name, n] of Object.entries(pending.used)) used[name] = (used[name] ?? 0) + n;
    known = { day: pending.day, used };
    pending = { day: pending.day, used: {} };
    try {
      const temporary = `${file}.${process.pid}.tmp`;
      writeFileSync(temporary, JSON.stringify(known), { mode: 0o600 });
      renameSync(temporary, file);
    } catch (error) {
      console.warn(`warning: could not keep the keys' daily counts in ${file}: ${(error as Error).message}`);
    }
  };
  if (file) process.on('exit', write);

  return {
    saved: (usageKey, day) => (known.day === day ? (known.used[nameOf(usageKey)] ?? 0) : 0),
    count(usageKey, day) {
      if (pending.day !== day) pending = { day, used: {} }; // a new day: yesterday's counts no longer matter
      const name = nameOf(usageKey);
      pending.used[name] = (pending.used[name] ?? 0) + 1;
      if (file && !timer) timer = setTimeout(write, WRITE_AFTER_MS).unref();
    },
  };
};
