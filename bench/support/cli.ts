// Runs a benchmark script (`node bench/support/cli.ts bench/<script>.ts [--help]`), as every
// bench script in package.json does: with --help or -h it prints the script's header comment,
// which says what it measures and which environment variables set it, and exits without
// running; any other argument is refused, as the scripts take their settings from the
// environment only. Otherwise it prints the machine, as figures mean little without it, and runs
// the script.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { machine } from './stats.ts';

const [script, ...args] = process.argv.slice(2);
if (!script) throw new Error('usage: node bench/support/cli.ts bench/<script>.ts [--help]');
const usage = () => {
  const lines = readFileSync(script, 'utf8').split('\n');
  const end = lines.findIndex((line) => !line.startsWith('//'));
  const header = lines.slice(0, Math.max(0, end));
  return header.map((line) => line.replace(/^\/\/ ?/, '')).join('\n');
};

if (args.some((arg) => arg === '--help' || arg === '-h')) {
  console.log(usage());
} else if (args.length > 0) {
  console.error(`${usage()}\n\nunknown argument ${args.join(' ')}: settings are environment variables (above)`);
  process.exitCode = 2;
} else {
  console.log(`machine: ${machine.description}`);
  await import(pathToFileURL(resolve(script)).href);
}
