// A start that cannot listen (the port is taken) leaves nothing behind: a new data
// directory is not created with a development key in it, and an existing one keeps its
// key and its keys as they were.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newDataDir, startLocalServer } from '../../tools/harness/local-server.ts';
import { createPet, keyTool } from './support.ts';

let taken: Server;
let port: string;
const dirs: string[] = [];

beforeAll(async () => {
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', () => resolve()));
  port = String((taken.address() as AddressInfo).port);
});
afterAll(() => {
  taken.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const startOnTakenPort = (dataDir: string) =>
  expect(startLocalServer({ PETSTORE_DATA_DIR: dataDir, PORT: port })).rejects.toThrow(
    /EADDRINUSE|address already in use/,
  );

describe('a start on a port in use', () => {
  test('creates no data directory (and so no development key) where there was none', async () => {
    const parent = newDataDir();
    dirs.push(parent);
    const fresh = join(parent, 'fresh');
    await startOnTakenPort(fresh);
    expect(existsSync(fresh)).toBe(false);
  });

  test('leaves an existing data directory’s development key and keys as they were', async () => {
    const dataDir = newDataDir();
    dirs.push(dataDir);
    const first = await startLocalServer({ PETSTORE_DATA_DIR: dataDir });
    await createPet(first, { name: 'Rex', categoryId: 1 });
    await first.stop();
    const before = {
      files: readdirSync(dataDir).sort(),
      key: readFileSync(join(dataDir, 'development-key'), 'utf8'),
      keys: (await keyTool(dataDir, 'list')).stdout,
    };

    await startOnTakenPort(dataDir);
    expect({
      files: readdirSync(dataDir).sort(),
      key: readFileSync(join(dataDir, 'development-key'), 'utf8'),
      keys: (await keyTool(dataDir, 'list')).stdout,
    }).toEqual(before);
  }, 90_000); // two starts and two runs of the key tool
});
