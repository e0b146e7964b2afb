// Every benchmark script in package.json answers --help with what it measures and how it is
// set, and runs nothing; any other argument is refused (its settings are environment variables).
// Run as npm runs them, in a process of their own: no benchmark code is imported here.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const { scripts } = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};
const benchScripts = Object.entries(scripts).filter(([, command]) => command.includes('bench/'));

const run = (command: string, ...args: string[]) => {
  const [, ...words] = command.split(' '); // `node …`: this Node, as npm's would be
  return spawnSync(process.execPath, [...words, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 10_000 });
};

describe('bench scripts', () => {
  test('are all run through bench/support/cli.ts', () => {
    expect(benchScripts.map(([name]) => name)).toEqual(
      expect.arrayContaining(['bench', 'bench:cold', 'bench:handlers', 'soak', 'load', 'fuzz']),
    );
    for (const [name, command] of benchScripts)
      expect(command, name).toMatch(/^node bench\/support\/cli\.ts bench\/[\w-]+\.ts$/);
  });

  test.each(benchScripts)('%s -- --help prints its usage and exits without running', (name, command) => {
    const result = run(command, '--help');
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain(`npm run ${name}`);
    expect(result.stdout).not.toMatch(/^\/\//m);
    expect(result.stderr).toBe('');
  });

  test('an argument other than --help is refused, with the usage', () => {
    const result = run(scripts.bench!, '--rounds', '3');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('npm run bench');
    expect(result.stderr).toContain('unknown argument --rounds 3');
  });
});
