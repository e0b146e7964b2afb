// `npm run dev`: the local stage (as `npm start`) that serves a saved change to a function,
// a shared module or the emulator within about a second, keeping the data, the key and
// the embedded DynamoDB running. Node cannot unload a module, so the code runs in a
// generation process (dev-generation.ts) replaced on each change, while this process
// keeps what must not restart: the data directory and its lock, the embedded DynamoDB,
// the management endpoint and the listening socket. It accepts every connection itself
// and hands it to the generation that is ready, so a request sent during a reload waits
// for the new code instead of failing. A warm spare generation is always waiting (the
// packages the code imports, imported), so a reload costs only the project's own modules.

import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { flushCompileCache } from 'node:module';
import { createServer, type Socket } from 'node:net';
import { watch } from 'chokidar';
import { SOURCE_COMMIT_ENV } from '../../shared/observability/source-commit.ts';
import { treeCommit } from '../source-commit.ts';
import { lockDataDir } from './data-dir.ts';
import type { FromGeneration, ToGeneration } from './dev-generation.ts';
import { startManagementEndpoint } from './management.ts';
import { cannotStart, failWith, printBanner, stageOptionsFromEnvironment, stopOnSignals } from './options.ts';
import { baseUrlOf, type LocalData, listen, openLocalData } from './stage.ts';
import { timestamped } from './timestamped.ts';

/** A commit given by hand (a tree without .git) holds for every reload; otherwise git says, each time. */
const GIVEN_COMMIT = process.env[SOURCE_COMMIT_ENV];

const COMMAND = 'npm run dev';
/** What a change under these (relative to the working directory) reloads. */
const WATCHED = ['functions', 'shared', 'infra'];
const SOURCE = /\.(ts|js|mjs|json)$/;
/** An editor's save is often several writes: one reload for them all. */
const SETTLE_MS = 50;
const GENERATION = new URL('./dev-generation.ts', import.meta.url);
const fail = failWith(COMMAND);
const options = stageOptionsFromEnvironment(COMMAND);

interface Generation {
  child: ChildProcess;
  send(message: ToGeneration, socket?: Socket): void;
}
let serving: Generation | undefined;
let loading: Generation | undefined;
let spare: Generation | undefined;
const draining = new Set<Generation>(); // answering what they had before a reload
let changed: string | undefined; // a change seen while a generation was loading
let packages: string[] | undefined; // what the last generation imported: the next ones import it ahead
const waiting: Socket[] = []; // connections that came while no generation was ready
let stopping = false;

const handOver = (generation: Generation, socket: Socket) => generation.send({ type: 'connection' }, socket);

/** Until the first generation is asked to load: a connection that comes meanwhile waits for it. */
let starting = true;
/** The first generation serves, or could not load: everything `stop` closes exists by then. */
const firstLoad = Promise.withResolvers<void>();
// From the first moment: a signal while starting stops once the first generation has answered
// what came meanwhile (a failed start exits through `fail` and never gets there).
stopOnSignals(async () => {
  await firstLoad.promise;
  await stop();
});

let lock: ReturnType<typeof lockDataDir>;
try {
  lock = lockDataDir(options.dataDir, 'server');
} catch (error) {
  fail(`cannot start: ${(error as Error).message}`);
}
// Paused: a connection's bytes stay unread until the generation that answers it reads them.
const api = createServer({ pauseOnConnect: true });
api.on('connection', (socket: Socket) => {
  if (serving) handOver(serving, socket);
  else if (loading || starting) waiting.push(socket);
  else socket.destroy(); // no code loads: nothing would answer it
});
try {
  await listen(api, options.port, options.host); // before anything is made in the data directory
} catch (error) {
  lock!.abandon();
  fail(cannotStart('npm run dev', error as Error, options));
}
let data: LocalData | undefined;
let key: Awaited<ReturnType<LocalData['key']>>;
try {
  data = await openLocalData(lock!, options);
  key = await data.key();
} catch (error) {
  api.close();
  await data?.close();
  lock!.abandon();
  fail(`cannot start: ${(error as Error).message}`);
}

const spawnGeneration = (): Generation => {
  const child = fork(GENERATION, {
    // Node's flags as this process got them (fork's default), compile-cache.mjs's among them: a
    // module that did not change is neither stripped of its types nor compiled again, which takes
    // most of a reload's time off.
    env: { ...process.env, ...data!.functionEnvironment },
    stdio: 'inherit',
  });
  const generation: Generation = {
    child,
    send: (message, socket) => {
      if (!child.connected) return void socket?.destroy();
      child.send(message, socket, (error) => error && socket?.destroy());
    },
  };
  child.on('message', (message: FromGeneration) => onMessage(generation, message));
  if (packages) generation.send({ type: 'warm', packages });
  child.on('exit', (code) => {
    if (generation === serving) {
      serving = undefined;
      if (!stopping)
        console.error(timestamped(`${COMMAND}: the functions' process exited (${code}); save a file to reload`));
    }
    if (generation === spare) {
      spare = undefined;
      if (serving) announceOnce();
    }
    if (generation === loading) onMessage(generation, { type: 'failed', message: `exited (${code})` });
    draining.delete(generation);
  });
  return generation;
};

let reloadStarted = 0;
const onMessage = (generation: Generation, message: FromGeneration) => {
  if (message.type === 'ready') {
    const first = !packages;
    packages = message.packages;
    const previous = serving;
    serving = generation;
    loading = undefined;
    for (const socket of waiting.splice(0)) handOver(generation, socket);
    firstLoad.resolve();
    if (previous) {
      draining.add(previous);
      previous.send({ type: 'drain', stopping: false });
    }
    if (!first)
      console.log(
        timestamped(`${COMMAND}: serving the code as saved (${Math.round(performance.now() - reloadStarted)} ms)`),
      );
    // The first spare warms with what the first generation imported; the address is printed
    // once it is warm, so that a change saved from then on reloads at full speed.
    prepareSpare();
    if (changed) reload(changed);
  } else if (message.type === 'failed' && generation === loading) {
    loading = undefined;
    console.error(
      timestamped(`${COMMAND}: the change did not load; still serving the code before it\n${message.message}`),
    );
    if (!serving) for (const socket of waiting.splice(0)) socket.destroy();
    firstLoad.resolve();
    announceOnce();
    prepareSpare();
    if (changed) reload(changed);
  } else if (message.type === 'warm' && generation === spare && serving) announceOnce();
};

/** A spare for the next reload, once the loading one is done: it would slow that one down. */
const prepareSpare = () => {
  if (!spare && !stopping) spare = spawnGeneration();
};

/** Loads the code as saved now, in the spare generation when there is one. */
const reload = (why: string) => {
  if (stopping) return;
  if (loading) {
    changed = why; // reloaded again once this one is done: it may have read the files half-saved
    return;
  }
  changed = undefined;
  reloadStarted = performance.now();
  if (why) console.log(timestamped(`${COMMAND}: ${why} changed, reloading`));
  loading = spare ?? spawnGeneration();
  spare = undefined;
  // The code about to load is the tree as saved now: its lines name that, not the start's commit.
  loading.send({ type: 'load', commit: GIVEN_COMMIT || treeCommit() });
};

const management = await startManagementEndpoint(lock!.dir, {
  // Every generation that answers: the draining ones too, which still hold kept-alive connections.
  flushAuthorizerCache: () => {
    for (const generation of [serving, loading, ...draining]) generation?.send({ type: 'flush' });
  },
});
lock!.update({ dynamodbAddress: data!.dynamodb.address, managementEndpoint: management.endpoint });

let announced = false;
/** Prints the address and the key once: when the first generation serves (or could not load). */
const announceOnce = () => {
  if (announced || stopping) return; // stopped before it was announced: no address to print
  announced = true;
  printBanner(
    { ...data!, ...key!, baseUrl: baseUrlOf(api, options.host), dataDir: lock!.dir },
    `Reloads on every change under ${WATCHED.map((dir) => `${dir}/`).join(', ')}. Stop with Ctrl+C.`,
  );
  flushCompileCache(); // compile-cache.mjs: a server killed later still starts from the cache next time
};

// chokidar rather than fs.watch: Node's recursive watch on Linux watches each file, and a save
// that renames a new file over the old one (editors' safe write, sed -i, git checkout) left the
// new file unwatched, so only the first such save reloaded. chokidar watches the directories.
let settle: NodeJS.Timeout | undefined;
const watcher = watch(WATCHED, {
  ignoreInitial: true,
  ignored: (path, stats) => stats?.isFile() === true && !SOURCE.test(path),
});
watcher.on('all', (_event, file) => {
  if (!SOURCE.test(file)) return;
  clearTimeout(settle);
  settle = setTimeout(() => reload(file), SETTLE_MS);
});
await once(watcher, 'ready'); // a change saved once the address is printed is seen
starting = false;
reload('');

async function stop(): Promise<void> {
  stopping = true;
  await watcher.close();
  api.close();
  for (const socket of waiting.splice(0)) socket.destroy();
  const children = [serving, loading, spare, ...draining].filter((g): g is Generation => g !== undefined);
  await Promise.all(
    children.map(
      (generation) =>
        new Promise<void>((resolve) => {
          if (generation.child.exitCode !== null) return resolve();
          generation.child.once('exit', () => resolve());
          if (generation === serving || draining.has(generation)) generation.send({ type: 'drain', stopping: true });
          else generation.child.kill('SIGKILL'); // it holds nothing, and ignores SIGTERM
        }),
    ),
  );
  await management.close();
  await data!.close();
  lock!.release();
}
