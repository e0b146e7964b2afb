// A data directory another local user made, or may write, is refused before anything in it
// is read (docs/api.md, "Local server and key tool"), as OpenSSH refuses such a key file:
// anyone may create a directory in the system's temporary directory first and plant a
// development key, a cursor secret and a DynamoDB credential there, then mint keys and read
// every table of the server that adopted it. Owners are changed for real, so the cases with
// another user's files run as root (as .ci/run does); the mode cases run as anyone.
import { chmodSync, chownSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { newDataDir, startLocalServer } from '../../tools/harness/local-server.ts';
import { STAMP } from '../support/timestamps.ts';
import { keyTool } from './support.ts';

const NOBODY = 65_534; // the conventional uid and gid of `nobody`
const PLANTED_KEY = 'pet_plantedByAnotherUser0000000000000000000000';
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A data directory with known secrets in it, as another user would leave it. */
const planted = (): string => {
  const parent = newDataDir();
  dirs.push(parent);
  const dir = join(parent, 'data');
  mkdirSync(dir, { mode: 0o700 });
  writeFileSync(join(dir, 'dynamodb-secret'), 'planted-dynamodb-secret', { mode: 0o600 });
  writeFileSync(join(dir, 'development-key'), PLANTED_KEY, { mode: 0o600 });
  writeFileSync(join(dir, 'cursor-secret'), 'planted-cursor-secret', { mode: 0o600 });
  return dir;
};

/** The start fails with one line naming the directory and why, and prints no key. */
const expectRefused = async (dir: string, why: RegExp) => {
  const start = startLocalServer({ PETSTORE_DATA_DIR: dir });
  await expect(start).rejects.toThrow(/server exited with 1 before it started/);
  const output = (await start.catch((error: Error) => error.message)) as string;
  const lines = output.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('server exited'));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(
    new RegExp(`^${STAMP}npm start: cannot start: refusing the data directory ${dir}: .*${why.source}`),
  );
  expect(output).not.toContain(PLANTED_KEY);
  const listed = await keyTool(dir, 'list');
  expect(listed.code).not.toBe(0);
  expect(listed.stderr).toMatch(why);
};

describe.runIf(process.getuid?.() === 0)('owned by another user', () => {
  test('the directory: npm start and the key tool refuse it, and print nothing of it', async () => {
    const dir = planted();
    for (const path of [dir, ...['dynamodb-secret', 'development-key', 'cursor-secret'].map((f) => join(dir, f))])
      chownSync(path, NOBODY, NOBODY);
    await expectRefused(dir, /belongs to another user \(uid 65534\)/);
  }, 60_000);

  test('one file in a directory of ours', async () => {
    const dir = planted();
    chownSync(join(dir, 'development-key'), NOBODY, NOBODY);
    await expectRefused(dir, /development-key belongs to another user/);
  }, 60_000);
});

describe('writable by others', () => {
  test.each(['777', '770', '702'])(
    'the directory, mode %s',
    async (mode) => {
      const dir = planted();
      chmodSync(dir, Number.parseInt(mode, 8));
      await expectRefused(dir, /is writable by other users/);
    },
    60_000,
  );

  test('a file in it', async () => {
    const dir = planted();
    chmodSync(join(dir, 'cursor-secret'), 0o620);
    await expectRefused(dir, /cursor-secret is writable by other users \(mode 620\)/);
  }, 60_000);
});
