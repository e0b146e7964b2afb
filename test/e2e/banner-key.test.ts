// The start-up banner and the development key. The contract: the local stage never writes a key
// to its output when that output is not a terminal (CI, a container, `> file`: a log). There the
// banner names the key's file (0600, in the data directory) instead; on a terminal it prints the
// key, for the person who started the server.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type LocalServer, newDataDir, npmScriptCommand, startLocalServer } from '../../tools/harness/local-server.ts';
import { STAMP } from '../support/timestamps.ts';
import { bearer, call, KEY_FORMAT } from './support.ts';

const KEY_ANYWHERE = /pet_[0-9A-Za-z]{32,}/;
const dirs: string[] = [];
const servers: LocalServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe.each(['infra/local/server.ts', 'infra/local/dev.ts'])('%s with stdout a pipe', (entry) => {
  it('prints no key: the banner names the 0600 file that holds it, and the key there works', async () => {
    const server = await startLocalServer({}, { entry });
    servers.push(server);
    dirs.push(server.dataDir);
    // Give the banner's last lines time to arrive: nothing after them may hold the key either.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const output = server.output();
    expect(output).not.toMatch(KEY_ANYWHERE);
    const file = new RegExp(
      `^${STAMP}API key \\(key_\\w+\\): in (/\\S+) \\(not printed: this output is not a terminal\\)$`,
      'm',
    ).exec(output)?.[1];
    expect(file, output).toBeDefined();
    expect(file!.startsWith(server.dataDir)).toBe(true);
    expect(statSync(file!).mode & 0o777).toBe(0o600);
    const key = readFileSync(file!, 'utf8').trim();
    expect(key).toMatch(KEY_FORMAT);
    expect((await call(server, '/pets', { authorization: bearer(key) })).status).toBe(200);
    // The Try line reads the file rather than quoting the key.
    expect(output).toMatch(new RegExp(`^${STAMP}Try: curl -H "Authorization: Bearer \\$\\(cat '${file}'\\)" `, 'm'));
    // CI's smoke check (.ci/run) finds the address and the key's file in this banner with its own
    // grep and sed: run as written there, on this output.
    expect(ciBannerReading(output)).toEqual({ url: server.baseUrl, keyFile: file });
  });
});

/** The address and key file .ci/run's smoke check reads from `output`, with its own two lines. */
const ciBannerReading = (output: string) => {
  const lines = readFileSync(new URL('../../.ci/run', import.meta.url), 'utf8').split('\n');
  const reading = lines.filter((line) => /^\s*(url|key_file)=\$\((grep|sed) /.test(line));
  expect(reading).toHaveLength(2);
  const dir = mkdtempSync(join(tmpdir(), 'banner-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'server.log'), output);
  const [url = '', keyFile = ''] = execFileSync(
    'bash',
    ['-c', `${reading.join('\n')}\nprintf '%s\\n%s' "$url" "$key_file"`],
    {
      env: { PATH: process.env.PATH, dir },
    },
  )
    .toString()
    .split('\n');
  return { url, keyFile };
};

it('on a terminal (a pseudo-terminal from script(1)) prints the key itself', async () => {
  const dataDir = newDataDir();
  dirs.push(dataDir);
  const node = npmScriptCommand('infra/local/server.ts', {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'WARN',
    PETSTORE_DATA_DIR: dataDir,
  });
  // script(1) runs the command through the shell with the environment it was given.
  const child = spawn('script', ['-qfec', [node.file, ...node.args].join(' '), '/dev/null'], {
    env: node.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    for (let wait = 0; wait < 300 && !new RegExp(`^${STAMP}Try: .*$`, 'm').test(output); wait++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const printed = new RegExp(`^${STAMP}API key \\(key_\\w+\\): (pet_\\w+)\\r?$`, 'm').exec(output)?.[1];
    expect(printed, output.replace(KEY_ANYWHERE, 'pet_…')).toMatch(KEY_FORMAT);
    expect(printed).toBe(readFileSync(`${dataDir}/development-key`, 'utf8').trim());
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}, 60_000);
