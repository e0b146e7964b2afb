// Turns on Node's module compile cache for the local server (`node --import` in package.json's
// `start` and `dev`; `npm run dev`'s generations inherit the flag), and fills it before the server
// loads anything. The cache keeps each module's type-stripped source and its V8 code between starts,
// so that a process that finds every module there loads no TypeScript stripper (amaro, a WASM module
// that stays resident once loaded: ~17 MB of RSS at the attack test's peak, docs/performance.md,
// "Memory under the attack test") and compiles nothing again. A cold cache (a fresh checkout, any
// source changed since the last start: every first start after a `git pull`) is filled first by a
// short-lived child (compile-cache-warmer.mjs) that strips and compiles the server's modules and exits,
// stripper and all; the server then starts on a warm cache. The child leaves a list of
// the files it loaded with their sizes and times: while none changed, no child runs (a warm start
// pays a few stat calls). Plain JavaScript because it must run before Node strips any TypeScript.
// The cache lives in the project's node_modules/.cache, not under the shared temporary directory
// (Node's default), where another local user could lay down code for this server to run; a
// NODE_COMPILE_CACHE of the caller's takes its place (Node enables that one first). Node checks
// every entry against its module's source, so what runs is the source whatever the list says; a
// cache that cannot be written, or a child that fails, is skipped (the server starts as without it).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { enableCompileCache, getCompileCacheDir } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { warmingCommand, warmingNeeded } from './compile-cache-warmer.mjs';

enableCompileCache(fileURLToPath(new URL('../../node_modules/.cache/petstore', import.meta.url)));

/**
 * Fills the cache for the modules a process running `entry` loads, in a child, when one of them is
 * not in it as it is now; returns once the child is done. On import, for this process's entry;
 * `npm run dev`'s generation again before it loads the code a save changed.
 */
export const fillCompileCache = (entry = process.argv[1]) => {
  const directory = getCompileCacheDir();
  // The entry a script runs (`node <flags> infra/local/server.ts`); not `node -e`'s arguments.
  if (!directory || !/\.[cm]?ts$/.test(entry ?? '') || !existsSync(entry)) return;
  const command = warmingCommand(entry, process.execArgv);
  if (!warmingNeeded(directory, command.files)) return;
  // Not the channel of a process started with one (fork, the harness's probe): that is this process's.
  const { NODE_CHANNEL_FD, NODE_CHANNEL_SERIALIZATION_MODE, ...env } = process.env;
  spawnSync(process.execPath, command.args, {
    env: { ...env, NODE_COMPILE_CACHE: dirname(directory) }, // the directory for this Node's version is under it
    stdio: 'ignore',
    timeout: 120_000,
  });
};

fillCompileCache();
