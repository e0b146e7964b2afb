// Gives memory back once a burst of requests is over. Under load V8 grows its heap (the young
// generation's pages, the old generation up to ~4× what is live) and glibc the memory behind
// its buffers; neither shrinks by itself when the server goes idle: `npm start` sat at ~300 MB
// for good after a benchmark, where a memory-reducing collection takes it to ~190 MB
// (docs/performance.md, Memory). Node runs no such collection on its own, so the server asks
// V8 for one when it has been idle a moment after its memory grew: a pause of up to ~0.1 s,
// once per burst, when no request is waiting for it.
import type { Server } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** No request in flight for this long: the burst is over. */
export const IDLE_MS = 1000;
/** RSS grown by this much since the last collection (or the start): worth a pause. */
const GROWTH_BYTES = 32 * 1024 * 1024;

type Gc = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/**
 * V8's `gc()` without `--expose-gc` on the command line, and without a `gc` global where the
 * functions run: the flag makes V8 install it in contexts created from then on, such as this one.
 */
const v8Gc = (): Gc => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as Gc;
};

/**
 * The collection V8 runs when memory is short (`flavor: 'last-resort'`: every collectable
 * object, the young generation shrunk, pooled pages returned), not the plain full collection
 * `gc()` runs, which left RSS where it was.
 */
export const collectAllAvailableGarbage = (): (() => void) => {
  const gc = v8Gc();
  return () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
};

/**
 * Watches `server`'s requests; once none has been in flight for `idleMs` after some were, and RSS
 * grew by `growthBytes` since the last collection, collects. A request pays two counter updates
 * and a clock read; the check runs on a timer that keeps no process alive.
 */
export const reduceMemoryWhenIdle = (
  server: Server,
  { idleMs = IDLE_MS, growthBytes = GROWTH_BYTES, collect = collectAllAvailableGarbage() } = {},
): void => {
  let inFlight = 0;
  let served = false; // since the last check that found the server idle
  let lastAnswered = 0;
  let after = process.memoryUsage.rss(); // RSS right after the last collection
  server.on('request', (_req, res) => {
    inFlight += 1;
    served = true;
    res.once('close', () => {
      inFlight -= 1;
      lastAnswered = performance.now();
    });
  });
  const check = setInterval(() => {
    if (!served || inFlight > 0 || performance.now() - lastAnswered < idleMs) return;
    served = false;
    if (process.memoryUsage.rss() - after < growthBytes) return;
    collect();
    after = process.memoryUsage.rss();
  }, idleMs / 4).unref();
  server.once('close', () => clearInterval(check));
};
