// A stand-in for the X-Ray daemon, a UDP socket on 127.0.0.1, for the tests that check what the
// functions send X-Ray (test/support/xray.ts holds the format) and the handler benchmarks, which
// check that a sampled invocation sent its document and an unsampled one none.
import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

interface DaemonDocument {
  /** The datagram's header line, which the daemon reads first. */
  header: unknown;
  document: Record<string, unknown>;
}

export interface XRayDaemon {
  /** For AWS_XRAY_DAEMON_ADDRESS. */
  address: string;
  /** Every datagram received since the last call, after a moment for those on their way. */
  take(): Promise<DaemonDocument[]>;
  close(): void;
}

export const startXRayDaemon = async (): Promise<XRayDaemon> => {
  const socket = createSocket('udp4');
  let received: string[] = [];
  socket.on('message', (message) => received.push(message.toString('utf8')));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(socket.address() as AddressInfo).port}`,
    take: async () => {
      await sleep(150);
      const taken = received;
      received = [];
      return taken.map((datagram) => {
        const newline = datagram.indexOf('\n');
        return { header: JSON.parse(datagram.slice(0, newline)), document: JSON.parse(datagram.slice(newline + 1)) };
      });
    },
    close: () => socket.close(),
  };
};
