// One connection's requests run one after another. Node hands a listener every
// request a client pipelines at once (it only queues the answers), so one client
// that pipelined a thousand requests ran a thousand at once and took the server.
// Here a connection's next request starts when the previous answer was handed to
// the connection, and a connection that has `maxQueued` requests waiting is not
// read from until they shrink; a client that never reads its answers soon stops
// being read at all (Node also stops reading a connection whose answers pile up).
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

interface Connection {
  busy: boolean;
  waiting: Array<() => void>;
  paused: boolean;
}

export const oneRequestAtATimePerConnection = (listener: RequestListener, maxQueued: number): RequestListener => {
  const connections = new WeakMap<Socket, Connection>();

  const startNext = (socket: Socket, connection: Connection) => {
    // The client left: nobody would get the answers of the requests still waiting.
    if (socket.destroyed) connection.waiting.length = 0;
    const next = connection.waiting.shift();
    connection.busy = next !== undefined;
    if (connection.paused && connection.waiting.length < maxQueued) {
      connection.paused = false;
      socket.resume();
    }
    next?.();
  };

  return (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    let connection = connections.get(socket);
    if (!connection) {
      connection = { busy: false, waiting: [], paused: false };
      connections.set(socket, connection);
    }
    const current = connection;
    const start = () => {
      let done = false;
      const finished = () => {
        if (done) return;
        done = true;
        startNext(socket, current);
      };
      // 'finish': the answer is with the connection; 'close': the client left before it.
      res.once('finish', finished);
      res.once('close', finished);
      listener(req, res);
    };
    if (!current.busy) {
      current.busy = true;
      start();
      return;
    }
    current.waiting.push(start);
    if (current.waiting.length >= maxQueued && !current.paused) {
      current.paused = true;
      socket.pause();
    }
  };
};
