// README, "Looking into the local store": the recipe a developer copies to read the embedded
// DynamoDB with the AWS CLI, run as written against `npm start` (its data directory set through
// PETSTORE_DATA_DIR, which the recipe reads), and dead once the server stops.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { LocalServer } from '../../tools/harness/local-server.ts';
import { createPet, disposeServer, startServer } from './support.ts';

const README = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');
const section = README.slice(README.indexOf('### Looking into the local store'));
const recipe = /```sh\n([\s\S]*?)```/.exec(section)![1]!;

/** The recipe in bash, as a reader pastes it, in a shell without AWS settings of its own. */
const runRecipe = (dataDir: string): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((done) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_')));
    execFile(
      'bash',
      ['-euo', 'pipefail', '-c', recipe],
      { env: { ...env, PETSTORE_DATA_DIR: dataDir } },
      (error, stdout, stderr) =>
        done({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

let server: LocalServer;
beforeAll(async () => {
  server = await startServer();
  await createPet(server, { name: 'Inspected', categoryId: 1 });
});
afterAll(() => disposeServer(server));

test('the recipe lists the tables and reads the animals while the server runs', async () => {
  // The AWS CLI comes with this project's machines (and CI's); elsewhere, install it to run this test.
  expect(spawnSync('aws', ['--version']).status, 'the AWS CLI (aws) is not on PATH').toBe(0);
  const { code, stdout, stderr } = await runRecipe(server.dataDir);
  expect(code, stderr).toBe(0);
  expect(stdout).toMatch(/"pets"/);
  expect(stdout).toMatch(/"Inspected"/);
}, 60_000);

test('once the server stops, its profile is gone and its credential with it', async () => {
  const profile = readFileSync(join(server.dataDir, 'aws-config'), 'utf8');
  await server.stop();
  expect(existsSync(join(server.dataDir, 'aws-config'))).toBe(false);
  const { code } = await runRecipe(server.dataDir);
  expect(code).not.toBe(0);
  expect(profile).toMatch(/aws_session_token = /);
}, 60_000);
