// `npm run dev` names, on every line, the commit of the code it serves: a save makes a clean tree
// dirty, and the lines after the reload say so (`<commit>-dirty`), where the start's commit alone
// would have claimed code the functions no longer run. A copy of the repository, in a git
// repository of its own, so that the test's save touches nothing other tests run from.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { disposeServer, type LocalServer, startLocalServer } from '../../tools/harness/local-server.ts';
import { call } from './support.ts';

const REPOSITORY = resolve(import.meta.dirname, '../..');
const tree = mkdtempSync(join(tmpdir(), 'petstore-dev-commit-'));
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], {
    cwd: tree,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
let server: LocalServer;
let head: string;

beforeAll(async () => {
  for (const part of ['functions', 'shared', 'infra', 'package.json', 'openapi.json'])
    cpSync(join(REPOSITORY, part), join(tree, part), { recursive: true });
  writeFileSync(join(tree, '.gitignore'), 'node_modules\n.data\n');
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'the tree as copied');
  head = git('rev-parse', '--short=12', 'HEAD');
  symlinkSync(join(REPOSITORY, 'node_modules'), join(tree, 'node_modules'));
  server = await startLocalServer({ LOG_LEVEL: 'INFO' }, { entry: 'infra/local/dev.ts', cwd: tree });
}, 120_000);
afterAll(async () => {
  await disposeServer(server);
  rmSync(tree, { recursive: true, force: true });
});

/** The commit the summary line of one listing names. */
const commitOfNextListing = async (): Promise<unknown> => {
  const requestId = (await call(server, '/pets')).headers.get('x-amzn-requestid');
  for (let i = 0; i < 100; i++) {
    const line = server
      .output()
      .split('\n')
      .find((l) => l.startsWith('{') && l.includes(`"requestId":"${requestId}"`) && l.includes('"message":"request"'));
    if (line) return (JSON.parse(line) as { commit: unknown }).commit;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no summary line for ${requestId}`);
};

test('a clean tree’s commit, then, after a save, the same commit marked dirty', async () => {
  expect(await commitOfNextListing()).toBe(head);
  const file = join(tree, 'functions', 'list-pets.ts');
  writeFileSync(file, `${readFileSync(file, 'utf8')}\n// saved by the test\n`);
  let commit: unknown;
  const saved = Date.now();
  do commit = await commitOfNextListing();
  while (commit === head && Date.now() - saved < 15_000);
  expect(commit).toBe(`${head}-dirty`);
}, 60_000);
