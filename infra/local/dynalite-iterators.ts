// Two repairs to the LevelDB iterators behind dynalite's Query and Scan, patched here because
// dynalite has no hook for either; remove each when its library does it itself.
//
// 1. dynalite 4.0.0 ends each iterator by calling `iterator.return()`, which abstract-level 3
//    iterators do not have (theirs is `close()`). So every listing left its iterator open for the
//    life of the server: ~6 KB of heap and a pinned LevelDB snapshot per request (found by
//    `npm run soak`). Giving the iterators the `return()` dynalite expects closes them.
// 2. classic-level 3 reads an iterator's entries in batches of up to 1,000 (`nextv(1000)` after the
//    first entry), and its C++ iterator reserves room for the whole batch, 64 bytes an entry, and
//    keeps it, with the last batch's copies, until V8 collects the iterator's handle, not when it is
//    closed. A handle that outlived a scavenge waits for the next mark-compact, seconds away under
//    load, so every listing in between held ~64 KB of native memory that V8 does not see: 130 MB
//    at the peak of the bench's load under heaptrack, 21–47 MB of the server's RSS under it
//    (docs/performance.md, Memory). Batches are bytes-bound anyway (16 KiB, `highWaterMarkBytes`),
//    so capping them at MAX_ENTRIES_PER_READ leaves a default page's reads as they were (a page
//    of 100 takes at most one more) and the reserve at 4 KB.
import { fromLevel } from './dynalite-modules.ts';

/** Entries one native read of a LevelDB iterator returns at most (classic-level asks for 1,000). */
export const MAX_ENTRIES_PER_READ = 64;

interface ClosableIterator {
  close(): Promise<void>;
  return?: () => Promise<void>;
}
type IteratorClass = { prototype: ClosableIterator };

// abstract-level as dynalite's own LevelDB (level) resolves it.
const abstractLevel = fromLevel('abstract-level') as Record<
  'AbstractIterator' | 'AbstractKeyIterator' | 'AbstractValueIterator',
  IteratorClass
>;

for (const iterator of [
  abstractLevel.AbstractIterator,
  abstractLevel.AbstractKeyIterator,
  abstractLevel.AbstractValueIterator,
]) {
  iterator.prototype.return ??= function (this: ClosableIterator) {
    return this.close();
  };
}

// classic-level's iterators call its native binding through this object on every read.
const binding = fromLevel('classic-level/binding.js') as {
  iterator_nextv(context: unknown, size: number): Promise<unknown[]>;
};
const readEntries = binding.iterator_nextv;
binding.iterator_nextv = (context, size) => readEntries(context, Math.min(size, MAX_ENTRIES_PER_READ));
