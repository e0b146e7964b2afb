// Each key's requests of the current UTC day, kept with the data (`key-usage.json` in the data
// directory), so that the daily quota does not start over at every restart: a deployed usage
// plan's count lives in API Gateway, not in the process. Counts are written a moment after they
// change (the file replaced whole, by rename) and at exit; a kill -9 may lose that moment's, a
// few requests more for the day, never a file half-written. The moment's write is asynchronous:
// under load it came every 200 ms, and a rename over the file, which ext4 makes wait for the new
// file's data, held the event loop and every request in flight for 0.3–3 ms (docs/performance.md).
// `npm run dev`'s generations share the file: each adds what it counted since its last write to
// what the file holds (two writing in the same moment, as one hands over to the next, may miss
// each other's counts of that moment: fewer requests counted, never more). Keys are named by a
// hash of their usage key, which is a credential of the usage plan.
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { timestamped } from './timestamped.ts';

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

const NOTHING: Saved = { day: -1, used: {} };
const parse = (text: string | undefined): Saved => {
  try {
    const saved = JSON.parse(text ?? '') as Saved;
    return typeof saved.day === 'number' && typeof saved.used === 'object' ? saved : NOTHING;
  } catch {
    return NOTHING; // none yet
  }
};
const readText = (file: string): string | undefined => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
};
/** `onDisk`'s counts of `day` with `added` on top. */
const addTo = (onDisk: Saved, day: number, ...added: Array<Record<string, number>>): Saved => {
  const used = { ...(onDisk.day === day ? onDisk.used : {}) };
  for (const counts of added) for (const [name, n] of Object.entries(counts)) used[name] = (used[name] ?? 0) + n;
  return { day, used };
};
const isEmpty = (counts: Saved) => Object.keys(counts.used).length === 0;

/** Counts kept in `file`; without one, in memory only. */
export const keyUsage = (file: string | undefined): KeyUsage => {
  let known = file ? parse(readText(file)) : NOTHING;
  let pending: Saved = { day: -1, used: {} };
  let timer: NodeJS.Timeout | undefined;
  /** The write under way: the counts it adds, and once it writes, the file it puts in place. */
  let writing: { counts: Saved; text?: string } | undefined;
  /** Set by the exit's write, which has put everything in place: a write still under way must not land after it. */
  let closed = false;

  const warn = (error: unknown) =>
    console.warn(timestamped(`warning: could not keep the keys' daily counts in ${file}: ${(error as Error).message}`));

  const writeSoon = async () => {
    timer = undefined;
    if (!file || writing || isEmpty(pending)) return;
    const counts = pending;
    pending = { day: counts.day, used: {} };
    writing = { counts };
    try {
      const onDisk = await readFile(file, 'utf8').catch(() => undefined);
      if (closed) return;
      const text = JSON.stringify(addTo(parse(onDisk), counts.day, counts.used));
      writing.text = text;
      const temporary = `${file}.${process.pid}.tmp`;
      await writeFile(temporary, text, { mode: 0o600 });
      if (closed) return;
      await rename(temporary, file);
      known = JSON.parse(text) as Saved;
    } catch (error) {
      warn(error);
      if (pending.day === counts.day) pending = addTo(pending, counts.day, counts.used); // tried again next time
    } finally {
      writing = undefined;
      if (!closed && !isEmpty(pending)) timer ??= setTimeout(writeSoon, WRITE_AFTER_MS).unref();
    }
  };

  /** At exit, at once: what is pending, and what a write under way has not put in place yet. */
  const writeNow = () => {
    clearTimeout(timer);
    if (!file || (isEmpty(pending) && !writing)) return;
    closed = true;
    const text = readText(file);
    const landed = writing?.text !== undefined && text === writing.text;
    // A write under way took its counts out of `pending`, which keeps their day.
    const unwritten = writing && !landed && writing.counts.day === pending.day ? [writing.counts.used] : [];
    if (isEmpty(pending) && unwritten.length === 0) return;
    try {
      const temporary = `${file}.${process.pid}.exit.tmp`;
      writeFileSync(temporary, JSON.stringify(addTo(parse(text), pending.day, pending.used, ...unwritten)), {
        mode: 0o600,
      });
      renameSync(temporary, file);
    } catch (error) {
      warn(error);
    }
  };
  if (file) process.on('exit', writeNow);

  return {
    saved: (usageKey, day) => (known.day === day ? (known.used[nameOf(usageKey)] ?? 0) : 0),
    count(usageKey, day) {
      if (pending.day !== day) pending = { day, used: {} }; // a new day: yesterday's counts no longer matter
      const name = nameOf(usageKey);
      pending.used[name] = (pending.used[name] ?? 0) + 1;
      if (file && !timer && !writing) timer = setTimeout(writeSoon, WRITE_AFTER_MS).unref();
    },
  };
};
