// Starts `npm start`'s server as its own process, as a user would, and reads the
// base URL and key from what it prints. For the end-to-end tests and the benchmarks.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROBE, type Probe, probeOf } from './probe-client.ts';

export interface LocalServer {
  baseUrl: string;
  key: string;
  dataDir: string;
  /** Everything the process printed so far (stdout and stderr); up to its start only with keepOutput false. */
  output(): string;
  /** Sends `signal` and waits for the process to exit; resolves to its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  process: ChildProcess;
  /** What probe.ts measures in the server: only with the `probe` option. */
  probe?: Probe;
}

export interface LocalServerOptions {
  /** Load probe.ts into the server: DynamoDB requests on the wire, CPU time, memory. */
  probe?: boolean;
  /** Node's own flags, before the script (`--expose-gc`, `--cpu-prof`…). */
  nodeArgs?: string[];
  /**
   * `npm start`'s defaults: the caller's environment minus every knob of ours, then only
   * `env` and a free port. Otherwise the tests' settings: 127.0.0.1 and LOG_LEVEL=WARN.
   */
  defaults?: boolean;
  /** false: drop what the server prints once it has started (long runs). */
  keepOutput?: boolean;
  /** The command's entry point: `npm start`'s by default, `infra/local/dev.ts` for `npm run dev`. */
  entry?: string;
  /**
   * The npm script whose flags and environment run `entry`, named by the entry it runs: `entry`'s
   * own by default; `infra/local/server.ts` (npm start's) for an entry that imports the server.
   */
  script?: string;
  /** The repository to run it in (a copy, for a test that edits the code). */
  cwd?: string;
  /** A command that runs the server's command (`['prlimit', '--nofile=512:512']`: fewer open files). */
  launcher?: string[];
}

/** Settings of ours a user's shell might hold; `npm start` on its defaults must not see them. */
const OUR_KNOBS = /^(PETSTORE_|POWERTOOLS_|AWS_|LOG_LEVEL$|PORT$|HOST$|NODE_OPTIONS$)/;

interface NpmScript {
  /** The script's leading assignments: `NAME=${NAME:-value}` a default (kept: false), `NAME=value` always set. */
  env: { name: string; value: string; keepGiven: boolean }[];
  /** Node's flags, between `exec node` and the entry. */
  flags: string[];
}

/** `NAME=${NAME:-value}` (a default a user's own setting overrides) or `NAME=value`, as sh reads them. */
const ASSIGNMENT = /^([A-Za-z_]\w*)=(?:\$\{(\w+):-([^}$'"`\\]*)\}|([^$'"`\\{}]*))$/;

/**
 * What package.json's npm script for `entry` runs (`[NAME=${NAME:-value}…] exec node <flags> <entry>`:
 * `npm start`'s memory settings): the script is their one home, and the harness starts the entry
 * with them, so that what a test or the bench measures is what the command runs. A checkout's own
 * package.json (an earlier commit's, for the bench); none for an entry no script runs. A script
 * with shell syntax beyond those assignments throws rather than start something npm would not.
 */
const npmScript = (entry: string, cwd = '.'): NpmScript => {
  const { scripts } = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  for (const script of Object.values(scripts)) {
    const words = script.trim().split(/\s+/);
    const exec = words.indexOf('exec');
    const [node, ...rest] = words.slice(exec + 1);
    if (exec < 0 || node !== 'node' || rest.at(-1) !== entry) continue;
    const env = words.slice(0, exec).map((word) => {
      const [, name, defaulted, fallback, value] = ASSIGNMENT.exec(word) ?? [];
      if (!name || (defaulted !== undefined && defaulted !== name)) {
        throw new Error(`package.json's script for ${entry}: cannot read ${word}`);
      }
      return { name, value: fallback ?? value!, keepGiven: defaulted !== undefined };
    });
    return { env, flags: rest.slice(0, -1) };
  }
  return { env: [], flags: [] };
};

/**
 * `env` as `script`'s npm script hands it to Node: a `NAME=${NAME:-value}` of the script sets NAME
 * where `env` leaves it unset or empty (sh's `:-`), a `NAME=value` always.
 */
const npmScriptEnv = (script: NpmScript, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => {
  const given = { ...env };
  for (const { name, value, keepGiven } of script.env) {
    if (!keepGiven || !given[name]) given[name] = value;
  }
  return given;
};

export interface NpmScriptCommand {
  /** This Node, as npm's `exec node` finds it on the PATH npm gives the script. */
  file: string;
  /** The script's Node flags, then `nodeArgs`, then `run`. */
  args: string[];
  /** The caller's environment with the script's assignments applied, as sh applies them. */
  env: NodeJS.ProcessEnv;
}

/**
 * What the npm script that runs `script` (an entry: `infra/local/server.ts` is `npm start`) runs
 * for a caller whose environment is `env`: its flags and its environment together, the one way the
 * tests and the bench start the server outside `npm` itself, so that neither half can be left out
 * (test/e2e/npm-start-command.test.ts holds it to the process `npm start` runs). `run` is what Node
 * runs in the entry's place (a module that imports the server, or `-e` and a program); `nodeArgs`
 * go between the script's flags and it.
 */
export const npmScriptCommand = (
  script: string,
  env: NodeJS.ProcessEnv,
  { run = [script], nodeArgs = [], cwd }: { run?: string[]; nodeArgs?: string[]; cwd?: string } = {},
): NpmScriptCommand => {
  const read = npmScript(script, cwd);
  return { file: process.execPath, args: [...read.flags, ...nodeArgs, ...run], env: npmScriptEnv(read, env) };
};

/**
 * The key the banner names: printed on a terminal; otherwise (a pipe, as here) the file that
 * holds the development key, or PETSTORE_API_KEY's, which the caller gave. Undefined until the
 * banner's key line is out.
 */
export const bannerKey = (output: string, given: string | undefined): string | undefined => {
  const shown = /API key \([^)]*\): (?:(pet_\w+)|in (\/.+?) \(not printed|(the one in PETSTORE_API_KEY))/.exec(output);
  if (!shown) return undefined;
  const [, printed, file, fromVariable] = shown;
  if (printed) return printed;
  if (file) return readFileSync(file, 'utf8').trim();
  return fromVariable ? given : undefined;
};

export const newDataDir = (): string => mkdtempSync(join(tmpdir(), 'petstore-test-'));

export const startLocalServer = (
  env: Record<string, string> = {},
  options: LocalServerOptions = {},
): Promise<LocalServer> => {
  const dataDir = env.PETSTORE_DATA_DIR ?? newDataDir();
  const entry = options.entry ?? 'infra/local/server.ts';
  const base = options.defaults
    ? Object.fromEntries(Object.entries(process.env).filter(([name]) => !OUR_KNOBS.test(name)))
    : { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'WARN' };
  const node = npmScriptCommand(
    options.script ?? entry,
    { ...base, PORT: '0', ...env, PETSTORE_DATA_DIR: dataDir },
    {
      run: [entry],
      nodeArgs: [...(options.nodeArgs ?? []), ...(options.probe ? ['--import', PROBE] : [])],
      cwd: options.cwd,
    },
  );
  const [command, ...launcherArgs] = [...(options.launcher ?? []), node.file];
  const child = spawn(command!, [...launcherArgs, ...node.args], {
    cwd: options.cwd,
    env: node.env,
    stdio: ['ignore', 'pipe', 'pipe', ...(options.probe ? (['ipc'] as const) : [])],
  });
  let output = '';
  let keep = true;
  const collect = (chunk: Buffer) => {
    if (keep) output += chunk;
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 30_000);
    const check = () => {
      const url = /listening at (http\S+)/.exec(output)?.[1];
      const key = bannerKey(output, env.PETSTORE_API_KEY);
      if (!url || !key) return;
      clearTimeout(timer);
      child.stdout!.off('data', check);
      keep = options.keepOutput ?? true;
      resolve({
        baseUrl: url,
        key,
        dataDir,
        output: () => output,
        process: child,
        ...(options.probe && { probe: probeOf(child) }),
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
