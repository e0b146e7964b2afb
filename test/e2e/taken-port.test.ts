// `npm start` (and `npm run dev`) on a port another process holds: one line that says the port
// is taken and how to get another, PORT=… or PORT=0 (README: Running it locally).
import { rmSync } from 'node:fs';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { newDataDir, startLocalServer } from '../../tools/harness/local-server.ts';
import { STAMP } from '../support/timestamps.ts';

let taken: Server;
let port: number;
const dirs: string[] = [];
beforeAll(async () => {
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', () => resolve()));
  port = (taken.address() as AddressInfo).port;
});
afterAll(() => {
  taken.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

test.each([
  ['infra/local/server.ts', 'npm start'],
  ['infra/local/dev.ts', 'npm run dev'],
])(
  '%s on a taken port says so and how to choose another',
  async (entry, command) => {
    const dataDir = newDataDir();
    dirs.push(dataDir);
    const failure = await startLocalServer({ PETSTORE_DATA_DIR: dataDir, PORT: String(port) }, { entry }).then(
      async (server) => {
        await server.stop();
        throw new Error('it started on a taken port');
      },
      (error: Error) => error.message,
    );
    const line = failure.split('\n').find((l) => new RegExp(`^${STAMP}${command}: cannot start`).test(l));
    expect(line, failure).toBeDefined();
    expect(line).toContain(`127.0.0.1:${port} is already in use`);
    expect(line).toContain(`PORT=${port + 1} ${command}`);
    expect(line).toContain(`PORT=0 ${command}`);
  },
  60_000,
);
