// Gives memory back once the server has been idle a while. Under load V8 grows its heap (the
// young generation's pages, the old generation up to ~4× what is live) and glibc the memory
// behind its buffers; neither shrinks by itself when the server goes idle: `npm start` sat at
// ~300 MB for good after a benchmark, where a memory-reducing collection takes it to ~190 MB
// (docs/performance.md, Memory). Node runs no such collection on its own, so the server asks
// V8 for one once it has been idle for PETSTORE_IDLE_MEMORY_SECONDS (30 by default) after its
// memory grew. Not sooner: the collection also resets V8's heap limits, and the next seconds of
// load then cost ~25–35 % more CPU while they grow back (measured: the same section), which a
// developer's next burst a second later would feel and one after half a minute's pause does not.
import type { Server } from 'node:http';

/** RSS grown by this much since the last collection (or the start): worth the collection. */
const GROWTH_BYTES = 32 * 1024 * 1024;

type Gc = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/**
 * The collection V8 runs when memory is short (`flavor: 'last-resort'`: every collectable
 * object, the young generation shrunk, pooled pages returned), not the plain full collection
 * `gc()` runs, which left RSS where it was. V8's `gc()` is there with `--expose-gc` only
 * (package.json's `start` and `dev`): setting that flag at run time instead
 * (`v8.setFlagsFromString`) cost the server ~30 % more CPU under load, collecting or not.
 */
export const collectAllAvailableGarbage = (): (() => void) | undefined => {
  const gc = (globalThis as { gc?: Gc }).gc;
  return gc && (() => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' }));
};

/**
 * Watches `server`'s requests; once none has been in flight for `idleMs` after some were, and RSS
 * grew by `growthBytes` since the last collection, collects. A request pays two counter updates
 * and a clock read; the check runs on a timer that keeps no process alive. Without `collect`
 * (Node started without --expose-gc), it does nothing.
 */
export const reduceMemoryWhenIdle = (
  server: Server,
  { idleMs, growthBytes = GROWTH_BYTES, collect = collectAllAvailableGarbage() }: ReduceMemoryOptions,
): void => {
  if (!collect) return;
  let inFlight = 0;
  let served = false; // since the last check that found the server idle
  let lastAnswered = 0;
  let after = residentSetSize() ?? 0; // RSS right after the last collection
  server.on('request', (_req, res) => {
    inFlight += 1;
    served = true;
    res.once('close', () => {
      inFlight -= 1;
      lastAnswered = performance.now();
    });
  });
  const check = setInterval(
    () => {
      if (!served || inFlight > 0 || performance.now() - lastAnswered < idleMs) return;
      served = false;
      const rss = residentSetSize();
      if (rss === undefined || rss - after < growthBytes) return;
      collect();
      after = residentSetSize() ?? rss;
    },
    Math.min(idleMs / 4, 1000),
  ).unref();
  server.once('close', () => clearInterval(check));
};

/**
 * The process's RSS, or undefined when it cannot be read: Node reads it from /proc, which takes a
 * file descriptor, and with none left it throws EMFILE (it once took the server down from this timer).
 */
const residentSetSize = (): number | undefined => {
  try {
    return process.memoryUsage.rss();
  } catch {
    return undefined;
  }
};

interface ReduceMemoryOptions {
  idleMs: number;
  growthBytes?: number;
  collect?: (() => void) | undefined;
}
