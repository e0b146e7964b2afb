// dynalite 4.0.0 ends the LevelDB iterator behind each Query and Scan by calling
// `iterator.return()`, which abstract-level 3 iterators do not have (theirs is
// `close()`). So every listing left its iterator open for the life of the server:
// ~6 KB of heap and a pinned LevelDB snapshot per request (found by `npm run soak`).
// Giving the iterators the `return()` dynalite expects closes them. Remove when
// dynalite closes its iterators itself.
import { fromLevel } from './dynalite-modules.ts';

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
