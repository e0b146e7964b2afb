// Loaded with `node --import` into a server that `npm run bench:gc` starts (bench/gc.ts), so that
// the server carries no code for it: SIGUSR2 opens a window and the next SIGUSR2 closes it, writing
// `<pid>-<n>.json` to the directory GC_WINDOW_DIR names: every collection in the window with each
// heap space before and after it (v8.GCProfiler), and V8's sampling heap profile of the window,
// every GC_WINDOW_SAMPLE_BYTES bytes allocated (8 KiB by default), objects collected since counted
// (GC_WINDOW_SURVIVORS=1: only those that outlived a scavenge, i.e. what gets promoted).
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { GCProfiler } from 'node:v8';
import { isMainThread } from 'node:worker_threads';

const directory = process.env.GC_WINDOW_DIR;
if (isMainThread && directory) {
  const survivorsOnly = process.env.GC_WINDOW_SURVIVORS === '1';
  const session = new Session();
  session.connect();
  let open: { gc: GCProfiler; cpu: NodeJS.CpuUsage } | undefined;
  let windows = 0;
  process.on('SIGUSR2', async () => {
    if (!open) {
      await session.post('HeapProfiler.startSampling', {
        samplingInterval: Number(process.env.GC_WINDOW_SAMPLE_BYTES ?? 8192),
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: !survivorsOnly,
      });
      open = { gc: new GCProfiler(), cpu: process.cpuUsage() };
      open.gc.start();
      writeFileSync(join(directory, `${process.pid}.open`), '');
      return;
    }
    const { gc, cpu } = open;
    open = undefined;
    const collections = gc.stop();
    const cpuMicros = process.cpuUsage(cpu);
    const { profile } = await session.post('HeapProfiler.stopSampling');
    const file = join(directory, `${process.pid}-${windows++}.json`);
    writeFileSync(file, JSON.stringify({ collections, profile, cpuMicros: cpuMicros.user + cpuMicros.system }));
  });
}
