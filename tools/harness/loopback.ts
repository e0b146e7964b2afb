// A test server on 127.0.0.1: an ephemeral port, and a close that does not wait for
// clients' keep-alive sockets (the SDK keeps its connections open).
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Listening {
  endpoint: string;
  close(): Promise<void>;
}

export const listenOnLoopback = async (server: Server): Promise<Listening> => {
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
};
