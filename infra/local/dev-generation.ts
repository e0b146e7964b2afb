// One generation of `npm run dev` (dev.ts): the functions and the emulated gateway of the
// code as it was saved, in a process of their own, since Node cannot unload a module.
// It starts warm — the packages the previous generation imported from the project's
// code, imported already — and imports the project's own modules only when told to load,
// so that a reload costs only those, and none of them can be older than the change that
// asked for it (so none is imported statically here). The supervisor, which holds the data and the listening socket,
// hands it each connection; told to drain, it answers what it has and exits.
import type { ServerResponse } from 'node:http';
import { flushCompileCache, registerHooks } from 'node:module';
import type { Socket } from 'node:net';
import { fillCompileCache } from './compile-cache.mjs';

/** What the supervisor tells a generation. */
export type ToGeneration =
  /** The packages to import ahead (URLs): what the last generation imported. */
  | { type: 'warm'; packages: string[] }
  /** `commit`: the work tree's as the code is loaded (a save makes a clean tree dirty), for every line to name. */
  | { type: 'load'; commit: string }
  | { type: 'connection' }
  | { type: 'flush' }
  /** Reload: answer what comes on the connections it has, closing each after its answer. Stop: close idle ones now. */
  | { type: 'drain'; stopping: boolean };
/** What a generation tells the supervisor. */
export type FromGeneration =
  | { type: 'warm' }
  | { type: 'ready'; packages: string[] }
  | { type: 'failed'; message: string };

const tell = (message: FromGeneration) => process.send!(message);
// The supervisor gone (killed), nothing would reach this process any more.
process.on('disconnect', () => process.exit(0));
// Ctrl+C signals the whole process group: the supervisor decides when this process stops (drain).
process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => undefined);

// The packages the project's own modules import (a bare specifier from outside node_modules),
// for the next generation to import ahead; not every dependency in node_modules.
const packages = new Set<string>();
registerHooks({
  resolve: (specifier, context, nextResolve) => {
    const resolved = nextResolve(specifier, context);
    const fromProject = context.parentURL !== undefined && !context.parentURL.includes('/node_modules/');
    if (fromProject && resolved.url.includes('/node_modules/')) packages.add(resolved.url);
    return resolved;
  },
});

const load = async () => {
  // The code as saved now into the compile cache first, in a child: this process, which serves until
  // the next save, then strips nothing and never holds Node's TypeScript stripper (compile-cache.mjs).
  fillCompileCache();
  const { prepareRuntime } = await import('./lambda-runtime.ts');
  await prepareRuntime(); // before the first AWS SDK call, as for `npm start`
  const { FUNCTION_TIMEOUT_SECONDS } = await import('../stages.ts');
  const { stageOptionsFromEnvironment } = await import('./options.ts');
  const { createStageServer } = await import('./stage.ts');
  (await import('./stdout-batching.ts')).batchStdoutByTurn();
  const { server, flushAuthorizerCache } = await createStageServer(stageOptionsFromEnvironment('npm run dev'));
  let draining = false;
  const answering = new Set<ServerResponse>();
  // While draining, each answer closes its connection (Connection: close), so that the
  // client's next request opens a connection the supervisor gives to the next generation.
  // Idle connections are not cut: a request the client sends on one at that moment would
  // be lost; they close at the keep-alive timeout, which clients know from Keep-Alive.
  server.prependListener('request', (_req, res: ServerResponse) => {
    if (draining) res.shouldKeepAlive = false;
    answering.add(res);
    res.once('close', () => answering.delete(res));
  });
  // It never listens (the supervisor does): 'listening' starts Node's bookkeeping of its
  // connections all the same, which closeIdleConnections and the request timeouts rely on.
  server.emit('listening');
  const sockets = new Set<Socket>();
  process.on('message', (message: ToGeneration, socket?: Socket) => {
    if (message.type === 'connection' && socket) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      server.emit('connection', socket);
      socket.resume(); // the supervisor accepted it paused: nothing read yet is lost
    } else if (message.type === 'flush') flushAuthorizerCache();
    else if (message.type === 'drain') {
      draining = true;
      for (const res of answering) if (!res.headersSent) res.shouldKeepAlive = false;
      setInterval(() => {
        if (message.stopping) server.closeIdleConnections();
        if (sockets.size === 0) process.exit(0);
      }, 50);
      // A request still running past the functions' timeout would never end.
      setTimeout(() => process.exit(0), (FUNCTION_TIMEOUT_SECONDS + 1) * 1000).unref();
    }
  });
  tell({ type: 'ready', packages: [...packages] });
  flushCompileCache(); // now, not at exit: the next generation loads the same modules
};

let warmed = Promise.resolve();
const onMessage = (message: ToGeneration) => {
  if (message.type === 'warm') {
    warmed = (async () => {
      for (const url of message.packages) await import(url).catch(() => undefined); // it loads or fails at 'load'
      tell({ type: 'warm' });
      flushCompileCache();
    })();
  } else if (message.type === 'load') {
    process.off('message', onMessage);
    // shared/observability/source-commit.ts's variable, by name: nothing of the project is imported before 'load'.
    process.env.PETSTORE_COMMIT = message.commit;
    warmed.then(load).catch((error: Error) => {
      tell({ type: 'failed', message: error.stack ?? error.message });
      process.exit(1);
    });
  }
};
process.on('message', onMessage);
