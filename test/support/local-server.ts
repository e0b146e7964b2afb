// Starts `npm start`'s server as its own process, as a user would, and reads the
// base URL and key from what it prints.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LocalServer {
  baseUrl: string;
  key: string;
  dataDir: string;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** Sends `signal` and waits for the process to exit; resolves to its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  process: ChildProcess;
}

export const newDataDir = (): string => mkdtempSync(join(tmpdir(), 'petstore-test-'));

export interface StartOptions {
  /** The command's entry point: `npm start`'s by default, `infra/local/dev.ts` for `npm run dev`. */
  entry?: string;
  /** The repository to run it in (a copy, for a test that edits the code). */
  cwd?: string;
}

export const startLocalServer = (
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<LocalServer> => {
  const dataDir = env.PETSTORE_DATA_DIR ?? newDataDir();
  const child = spawn(process.execPath, [options.entry ?? 'infra/local/server.ts'], {
    cwd: options.cwd,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'WARN', ...env, PETSTORE_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 30_000);
    const check = () => {
      const url = /listening at (http\S+)/.exec(output)?.[1];
      const key = /API key \([^)]*\): (pet_\w+)/.exec(output)?.[1];
      if (!url || !key) return;
      clearTimeout(timer);
      child.stdout!.off('data', check);
      resolve({
        baseUrl: url,
        key,
        dataDir,
        output: () => output,
        process: child,
        stop: async (signal = 'SIGTERM') => {
          if (child.exitCode === null) child.kill(signal);
          return exited;
        },
      });
    };
    child.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before it started:\n${output}`));
    });
  });
};

/** Stops the server (if it still runs) and removes its data directory. */
export const disposeServer = async (server: LocalServer | undefined): Promise<void> => {
  if (!server) return;
  await server.stop();
  rmSync(server.dataDir, { recursive: true, force: true });
};
