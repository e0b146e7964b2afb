// One generation of `npm run dev` (dev.ts): the functions and the emulated gateway of the
// code as it was saved, in a process of their own, since Node cannot unload a module.
// It starts warm — its runtime prepared and the packages every generation shares
// imported — and loads the project's own modules only when told to, so that a reload
// costs only those. The supervisor, which holds the data and the listening socket,
// hands it each connection; told to drain, it answers what it has and exits.
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { FUNCTION_TIMEOUT_SECONDS } from '../stages.ts';
import { prepareRuntime } from './lambda-runtime.ts';
import { stageOptionsFromEnvironment } from './options.ts';
import { createStageServer } from './stage.ts';

/** What the supervisor tells a generation. */
export type ToGeneration =
  | { type: 'load' }
  | { type: 'connection' }
  | { type: 'flush' }
  /** Reload: answer what comes on the connections it has, closing each after its answer. Stop: close idle ones now. */
  | { type: 'drain'; stopping: boolean };
/** What a generation tells the supervisor. */
export type FromGeneration = { type: 'ready' } | { type: 'failed'; message: string };

const tell = (message: FromGeneration) => process.send!(message);
// The supervisor gone (killed), nothing would reach this process any more.
process.on('disconnect', () => process.exit(0));
// Ctrl+C signals the whole process group: the supervisor decides when this process stops (drain).
process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => undefined);

await prepareRuntime(); // before the first AWS SDK call, as for `npm start`
const { dependencies } = JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string> };
for (const name of Object.keys(dependencies)) await import(name).catch(() => undefined); // some have no main entry

const load = async () => {
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
  tell({ type: 'ready' });
};

process.once('message', (message: ToGeneration) => {
  if (message.type !== 'load') return;
  load().catch((error: Error) => {
    tell({ type: 'failed', message: error.stack ?? error.message });
    process.exit(1);
  });
});
