// The tests and the bench start `npm start` (and `npm run dev`) without npm, through
// npmScriptCommand, which reads the script: held here to the process npm itself starts, so that
// the flags and the environment the script gives Node (glibc's arenas, the generations' sizes) are
// what every test that says "npm start" runs. Both come from outside the harness: Node's argv and
// environment as the kernel holds them (/proc/<pid>/cmdline and environ), the script's share of the
// environment being what the server's has and neither the caller's nor npm's own (npm's is what
// npm gives a script that sets nothing: its built-in `npm run env`).
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { newDataDir, npmScriptCommand, startLocalServer } from '../../tools/harness/local-server.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

type Env = Record<string, string | undefined>;
const argvOf = (pid: number): string[] => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
const envOf = (pid: number): Env =>
  Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
const parseEnv = (text: string): Env =>
  Object.fromEntries(text.split('\n').flatMap((line) => (line.includes('=') ? [line.split(/=(.*)/s, 2)] : [])));
/** What `env` holds that `caller` does not, or holds otherwise. */
const added = (env: Env, caller: Env): Env =>
  Object.fromEntries(Object.entries(env).filter(([name, value]) => caller[name] !== value));
const without = (env: Env, names: Env): Env =>
  Object.fromEntries(Object.entries(env).filter(([name]) => !(name in names)));

/** The environment npm gives any script of this package: its own variables, and PATH. */
const npmOwn = (caller: Env): Env =>
  added(parseEnv(execFileSync('npm', ['run', '--silent', 'env'], { env: caller, encoding: 'utf8' })), caller);

/** The caller's environment for one start: a fresh data directory, a free port, quiet logs. */
const callerEnv = (): Env => {
  const dir = newDataDir();
  dirs.push(dir);
  return { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'WARN', PETSTORE_DATA_DIR: dir };
};

/** Starts `npm <command>` as a person does; Node's argv and environment once it listens. */
const underNpm = async (command: string, caller: Env): Promise<{ argv: string[]; env: Env }> => {
  const npm = spawn('npm', [...command.split(' '), '--silent'], { env: caller, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  npm.stdout.on('data', (chunk) => (output += chunk));
  npm.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((done) => npm.once('exit', done));
  try {
    for (let wait = 0; wait < 300 && !/listening at http/.test(output); wait++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(output).toMatch(/listening at http/);
    // npm's script shell execs Node: the process that holds the data directory.
    const { pid } = JSON.parse(readFileSync(join(caller.PETSTORE_DATA_DIR!, 'owner.lock'), 'utf8')) as { pid: number };
    return { argv: argvOf(pid), env: envOf(pid) };
  } finally {
    npm.kill('SIGTERM');
    await exited;
  }
};

test.each([
  ['start', 'infra/local/server.ts'],
  ['run dev', 'infra/local/dev.ts'],
])(
  'npm %s: the harness runs %s with the flags and the environment npm gives it',
  async (command, entry) => {
    const caller = callerEnv();
    const npm = await underNpm(command, caller);
    const fromScript = without(added(npm.env, caller), npmOwn(caller));
    expect(npm.argv.at(-1)).toBe(entry);

    // The command the tests build from the script, for the same caller.
    const built = npmScriptCommand(entry, caller);
    expect(built.args).toEqual(npm.argv.slice(1));
    expect(added(built.env, caller)).toEqual(fromScript);

    // And the process the harness starts with it.
    const server = await startLocalServer({ PETSTORE_DATA_DIR: caller.PETSTORE_DATA_DIR! }, { entry });
    try {
      const pid = server.process.pid!;
      expect(argvOf(pid).slice(1)).toEqual(npm.argv.slice(1));
      expect(added(envOf(pid), caller)).toEqual(fromScript);
    } finally {
      await server.stop();
    }
  },
  90_000,
);
