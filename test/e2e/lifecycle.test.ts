// Starting and stopping the local server as people and process managers do: a SIGTERM
// to `npm start` itself, restarts that keep one development key, and a restart right
// after `kill -9` whose killed server is still a zombie, and Ctrl+C, whose SIGINT comes twice.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { bannerKey, type LocalServer, newDataDir, startLocalServer } from '../../tools/harness/local-server.ts';
import { STAMP } from '../support/timestamps.ts';
import { call, disposeServer, keyTool, startServer } from './support.ts';

const dataDirs: string[] = [];
const started: ChildProcess[] = [];
const dataDir = () => {
  const dir = newDataDir();
  dataDirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

const waitFor = async (condition: () => boolean | Promise<boolean>, ms: number): Promise<boolean> => {
  for (const until = Date.now() + ms; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
    if (await condition()) return true;
  }
  return condition();
};

/** MALLOC_ARENA_MAX in process `pid`'s environment: package.json's start script sets it unless the caller's does. */
const arenasOf = (pid: number): string | undefined =>
  /(?:^|\0)MALLOC_ARENA_MAX=([^\0]*)/.exec(readFileSync(`/proc/${pid}/environ`, 'utf8'))?.[1];
const ARENAS = process.env.MALLOC_ARENA_MAX || '2';

const accepts = (url: URL): Promise<boolean> =>
  new Promise((done) => {
    const socket = connect(Number(url.port), url.hostname);
    socket.once('connect', () => done(socket.destroy() !== undefined));
    socket.once('error', () => done(false));
  });

/**
 * `npm <command>` in its own process group (as under a process manager, or a terminal's
 * foreground job), on a free port and its own data directory; `output()` is all it printed.
 */
const spawnNpm = (command: string, dir: string) => {
  const npm = spawn('npm', [...command.split(' '), '--silent'], {
    env: {
      ...process.env,
      PATH: `${resolve('node_modules/.bin')}:${process.env.PATH}`,
      PORT: '0',
      PETSTORE_DATA_DIR: dir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  started.push(npm);
  let output = '';
  npm.stdout!.on('data', (chunk) => (output += chunk));
  npm.stderr!.on('data', (chunk) => (output += chunk));
  return { npm, output: () => output };
};

test('the harness starts the server with the environment npm start gives it (glibc’s arenas held), for the tests and the bench', async () => {
  const server = await startLocalServer({ PETSTORE_DATA_DIR: dataDir() }, { defaults: true });
  try {
    expect(arenasOf(server.process.pid!)).toBe(ARENAS);
  } finally {
    await disposeServer(server);
  }
}, 60_000);

test.each(['SIGTERM', 'SIGINT'] as const)(
  '%s to the `npm start` process alone answers the requests it had, stops the server, frees the port and the data directory',
  async (signal) => {
    const dir = dataDir();
    const { npm, output } = spawnNpm('start', dir);
    expect(await waitFor(() => /listening at http/.test(output()), 30_000), output()).toBe(true);
    const url = new URL(/listening at (http\S+)/.exec(output())![1]!);
    const key = bannerKey(output(), undefined)!;
    expect(await accepts(url)).toBe(true);
    const { pid } = JSON.parse(readFileSync(join(dir, 'owner.lock'), 'utf8')) as { pid: number };
    expect(arenasOf(pid), 'the server npm start runs has glibc’s arenas held').toBe(ARENAS);

    // Requests on their way when the signal comes are answered.
    const inFlight = Array.from({ length: 5 }, () =>
      fetch(`${url.href}/pets?limit=1`, { headers: { Authorization: `Bearer ${key}` } }).then((r) => r.status),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    npm.kill(signal); // npm's own pid, not its group
    expect(await Promise.all(inFlight)).toEqual([200, 200, 200, 200, 200]);
    expect(await waitFor(async () => !(await accepts(url)), 10_000), 'the port is still served').toBe(true);
    expect(await waitFor(() => !existsSync(join(dir, 'owner.lock')), 5_000), 'the data directory is still held').toBe(
      true,
    );
    const groupGone = () => {
      try {
        process.kill(-npm.pid!, 0);
        return false;
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === 'ESRCH';
      }
    };
    expect(await waitFor(groupGone, 10_000), `a process of npm start's group still runs:\n${output()}`).toBe(true);
  },
  60_000,
);

test.each(['start', 'run dev'])(
  'Ctrl+C to `npm %s`: SIGINT to the whole group, which npm forwards again, stops it cleanly ("stopped", no owner.lock)',
  async (command) => {
    const dir = dataDir();
    const { npm, output } = spawnNpm(command, dir);
    expect(await waitFor(() => /listening at http/.test(output()), 60_000), output()).toBe(true);
    const exited = new Promise((done) => npm.once('exit', done));
    process.kill(-npm.pid!, 'SIGINT'); // what the terminal does: the server gets it, and again from npm
    await exited;
    expect(output()).toMatch(new RegExp(`^${STAMP}stopped$`, 'm'));
    expect(output()).not.toMatch(/stopped at once/);
    expect(existsSync(join(dir, 'owner.lock')), output()).toBe(false);
  },
  90_000,
);

test.each(['infra/local/server.ts', 'infra/local/dev.ts'])(
  '%s: a second signal during a stop does not cut it short; a third stops at once, saying so',
  async (entry) => {
    const start = () => startLocalServer({ PETSTORE_DATA_DIR: dataDir() }, { entry });
    const exitOf = (server: LocalServer) => new Promise((done) => server.process.once('exit', done));
    // A request still arriving (headers in, body half sent) holds the stop open, so that the later
    // signals come during it however slowly a busy machine schedules them; 100 ms apart, as two
    // processes send them (a signal sent while one is pending is merged with it).
    const holdStop = (server: LocalServer) => {
      const held = connect(Number(new URL(server.baseUrl).port), '127.0.0.1');
      let answer = '';
      held.on('data', (chunk) => (answer += chunk));
      held.on('error', () => {});
      const body = JSON.stringify({ name: 'Held', categoryId: 1 });
      held.write(
        `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.key}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
      );
      return { finish: () => held.write(body.slice(5)), answer: () => answer };
    };
    const signalTimes = async (server: LocalServer, times: number) => {
      for (let i = 0; i < times; i++) {
        server.process.kill('SIGINT');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };

    const second = await start();
    const secondExit = exitOf(second);
    const request = holdStop(second);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await signalTimes(second, 2);
    request.finish();
    expect(await secondExit, second.output()).toBe(0);
    expect(request.answer()).toMatch(/^HTTP\/1\.1 201 /); // the request it had was answered
    expect(second.output()).toMatch(new RegExp(`^${STAMP}stopped$`, 'm'));
    expect(existsSync(join(second.dataDir, 'owner.lock'))).toBe(false);

    const third = await start();
    const thirdExit = exitOf(third);
    holdStop(third);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await signalTimes(third, 3);
    expect(await thirdExit).toBe(1);
    expect(third.output()).toMatch(/stopped at once \(SIGINT a third time\)/);
  },
  60_000,
);

test('every start without PETSTORE_API_KEY prints the same development key, and mints no other', async () => {
  const dir = dataDir();
  const first = await startServer({ PETSTORE_DATA_DIR: dir });
  await first.stop();
  const second = await startServer({ PETSTORE_DATA_DIR: dir });
  try {
    expect(second.key).toBe(first.key);
    expect((await call(second, '/pets')).status).toBe(200);
  } finally {
    await second.stop();
  }
  const listed = await keyTool(dir, 'list');
  expect(listed.code, listed.stderr).toBe(0);
  expect(listed.stdout.match(/key_[0-9A-Za-z]+/g)).toHaveLength(1);
}, 60_000);

test('a lock left by a zombie (killed, not yet reaped) does not stop the next start', async () => {
  // `sleep 1` exits after its parent has exec'd `sleep 30`, which never reaps it. (With `sleep 0`
  // the shell could still be there when it exited, and reap it before the exec: no zombie.)
  const parent = spawn('sh', ['-c', 'sleep 1 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
  started.push(parent);
  const zombie = Number(
    await new Promise<string>((done) => parent.stdout!.once('data', (chunk) => done(String(chunk)))),
  );
  const state = () => readFileSync(`/proc/${zombie}/stat`, 'utf8').split(') ')[1]?.[0];
  expect(await waitFor(() => state() === 'Z', 5_000)).toBe(true);

  const dir = dataDir();
  writeFileSync(join(dir, 'owner.lock'), JSON.stringify({ pid: zombie, owner: 'server' }));
  const server = await startServer({ PETSTORE_DATA_DIR: dir });
  try {
    expect((await call(server, '/pets')).status).toBe(200);
  } finally {
    await disposeServer(server);
    parent.kill();
  }
}, 60_000);
