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

const readList = (directory) => {
  try {
    return JSON.parse(readFileSync(manifestPath(directory), 'utf8'));
  } catch {
    return {}; // none yet
  }
};
const stampOrNone = (file) => {
  try {
    return stamp(file);
  } catch {
    return undefined; // gone
  }
};

/** Whether a file of `files` is not in the cache's list, or one of the list changed since it was filled. */
export const warmingNeeded = (directory, files) => {
  const filled = readList(directory);
  return (
    !files.every((file) => file in filled) || Object.entries(filled).some(([file, was]) => stampOrNone(file) !== was)
  );
};

if (import.meta.main) {
  const directory = getCompileCacheDir();
  const asked = process.argv.slice(2);
  const listed = readList(directory);
  /** The files in the cache as they are now; a file loaded here joins them. */
  const filled = Object.fromEntries(Object.entries(listed).filter(([file, was]) => stampOrNone(file) === was));
  // Only what is not in the cache is loaded: every other module (a package, a builtin, a module
  // filled before) is an empty one in its place, so that a start after one edit strips that file
  // alone. The link fails all the same, after each module is compiled.
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      if (resolved.url.startsWith('data:')) return resolved;
      if (
        resolved.url.startsWith('file:') &&
        TYPESCRIPT.test(resolved.url) &&
        !(fileURLToPath(resolved.url) in filled)
      ) {
        return resolved;
      }
      return { url: 'data:text/javascript,', shortCircuit: true };
    },
    load(url, context, nextLoad) {
      if (url.startsWith('file:')) {
        const file = fileURLToPath(url);
        filled[file] = stamp(file); // before it is read: a change from here on makes the next start fill again
      }
      return nextLoad(url, context);
    },
  });
  // Every file of the list too: one changed outside the folders (infra/stages.ts) is reached from
  // no module loaded here, its importers being in the cache already.
  for (const file of new Set([...asked, ...Object.keys(listed)])) {
    if (stampOrNone(file) === undefined) continue;
    const module = JSON.stringify(pathToFileURL(file).href);
    await import(`data:text/javascript,import ${module};import { linkFails } from "data:text/javascript,";`).catch(
      () => undefined,
    );
  }
  flushCompileCache();
  // A file asked for that failed to load counts as filled: it fails the server's start too.
  for (const file of asked) filled[file] ??= stampOrNone(file);
  const list = manifestPath(directory);
  writeFileSync(`${list}.${process.pid}`, JSON.stringify(filled)); // renamed: a start reads the whole list or none
  renameSync(`${list}.${process.pid}`, list);
}
