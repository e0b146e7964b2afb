// Loaded into a server with `node --import` by test/e2e/compile-cache.test.ts: says on stderr, as
// the process exits, whether Node loaded its TypeScript stripper (amaro) in it. JavaScript, so that
// loading it strips nothing itself.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  const loaded = process.moduleLoadList.some((name) => name.includes('amaro'));
  writeSync(2, `typescript stripper: ${loaded ? 'loaded' : 'not loaded'}\n`);
});
