// Fills Node's compile cache for a server about to start (compile-cache.mjs runs it as a child when
// a source changed since the last fill): it loads the server's entry, the modules `--import`ed into
// it and every TypeScript module under functions/, shared/ and infra/local/ (the handlers and the
// modules the server imports lazily: a route's handler at start, idempotent-create.ts at the first
// Idempotency-Key) without running any of them, so that Node strips and compiles each into the
// cache, then exits, taking the stripper with it. Nothing is evaluated: each is imported behind a
// missing export, which fails the link once every module of the graph is loaded and compiled. It
// then records every TypeScript file it loaded with its size and time, the list that compile-cache.mjs
// checks before starting another. Plain JavaScript, so that running it strips nothing of its own.
import { readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { flushCompileCache, getCompileCacheDir, registerHooks } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SOURCES = ['functions', 'shared', 'infra/local'];
const SELF = fileURLToPath(import.meta.url);
const TYPESCRIPT = /\.[cm]?ts$/;
/** Flags whose value is the next word. */
const VALUED =
  /^(--import|--require|-r|--loader|--experimental-loader|--inspect-port|--debug-port|--cpu-prof-dir|--cpu-prof-name|--heap-prof-dir|--heap-prof-name|--diagnostic-dir|--env-file)$/;
/** Flags of a run, not of the code: a debugger's port, a profile, a log would be the child's too. */
const RUN_ONLY = /^--(inspect|debug|cpu-prof|heap-prof|prof|diagnostic-dir|env-file|watch|redirect-warnings|report)/;

const typescriptUnder = (directory) =>
  readdirSync(join(ROOT, directory), { recursive: true, encoding: 'utf8' })
    .filter((name) => TYPESCRIPT.test(name) && !name.endsWith('.d.ts'))
    .map((name) => join(ROOT, directory, name));

/** In the cache's directory for this Node (its version, architecture and V8 flags). */
const manifestPath = (directory) => join(directory, 'petstore-warmed.json');
const stamp = (file) => {
  const { size, mtimeMs } = statSync(file);
  return `${size}:${mtimeMs}`;
};

/**
 * What the child runs for a process whose entry is `entry` and whose Node flags are `execArgv`:
 * the same flags (V8 takes a code cache only from a process with its flags), bar the preloads (this
 * module loads them; compile-cache.mjs's turns the cache on, NODE_COMPILE_CACHE does in the child)
 * and the run's own (a debugger, a profile), then this module and the files to load.
 */
export const warmingCommand = (entry, execArgv) => {
  const flags = [];
  const preloads = [];
  for (let i = 0; i < execArgv.length; i++) {
    const [flag, attached] = execArgv[i].split(/=(.*)/s);
    const value = attached ?? (VALUED.test(flag) ? execArgv[++i] : undefined);
    if (flag === '--import' || flag === '--require' || flag === '-r') {
      const file = value.startsWith('file:') ? fileURLToPath(value) : resolve(value);
      if (TYPESCRIPT.test(file)) preloads.push(file);
    } else if (!RUN_ONLY.test(flag) && !VALUED.test(flag)) {
      flags.push(execArgv[i]);
    }
  }
  const files = [...new Set([resolve(entry), ...preloads, ...SOURCES.flatMap(typescriptUnder)])];
  return { files, args: [...flags, SELF, ...files] };
};

/** Whether a file of `files` or one the last fill loaded is not in the cache as it is now. */
export const warmingNeeded = (directory, files) => {
  try {
    const warmed = JSON.parse(readFileSync(manifestPath(directory), 'utf8'));
    return !files.every((file) => file in warmed) || Object.entries(warmed).some(([file, was]) => stamp(file) !== was);
  } catch {
    return true; // no list yet, or a file of it gone
  }
};

if (import.meta.main) {
  // The files asked for count as filled even if one fails to load: it fails the server's start too.
  const loaded = Object.fromEntries(process.argv.slice(2).map((file) => [file, stamp(file)]));
  registerHooks({
    load(url, context, nextLoad) {
      if (url.startsWith('file:') && TYPESCRIPT.test(url)) {
        const file = fileURLToPath(url);
        loaded[file] = stamp(file); // before it is read: a change from here on makes the next start fill again
      }
      return nextLoad(url, context);
    },
  });
  for (const file of process.argv.slice(2)) {
    const module = JSON.stringify(pathToFileURL(file).href);
    await import(`data:text/javascript,import ${module};import { linkFails } from "data:text/javascript,";`).catch(
      () => undefined,
    );
  }
  flushCompileCache();
  const list = manifestPath(getCompileCacheDir());
  writeFileSync(`${list}.${process.pid}`, JSON.stringify(loaded)); // renamed: a start reads the whole list or none
  renameSync(`${list}.${process.pid}`, list);
}
