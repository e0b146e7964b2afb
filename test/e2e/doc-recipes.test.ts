// Every shell recipe (a ```sh block) of every Markdown file in the repository (the README, docs/,
// client/README.md, the READMEs beside vendored data), as a reader copies it, so that none can rot
// unseen (the README's paging recipe sent HEAD, which is 404, for months). A block is one of four
// kinds, said by an HTML comment on the line before it:
//   (none)                         run here, in bash, against `npm start`, as the reader would:
//                                  BASE and KEY are the server's, `http://127.0.0.1:3000` its
//                                  address and `pet_…` its key; each has its own check below.
//   <!-- recipe: aws -->           needs an AWS account: its syntax is checked (bash -n), each
//                                  `npm run` script exists and takes every flag the recipe gives it
//                                  (its --help lists it), each `npx cdk` command exists and takes
//                                  its flags (`cdk <command> --help`); `aws …` lines only by syntax.
//   <!-- recipe: not-run: why -->  not run here (`npm test` itself, minutes of load): each npm
//                                  script it names exists.
//   <!-- recipe: record: why -->   how vendored data was taken, from what this machine does not
//                                  hold (another repository's history): its syntax is checked,
//                                  and each program it runs is on PATH.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalServer } from '../../tools/harness/local-server.ts';
import { createPet, disposeServer, startServer } from './support.ts';

interface Recipe {
  file: string;
  line: number;
  kind: 'local' | 'aws' | 'not-run' | 'record';
  code: string;
}

/** Every Markdown file git tracks: a new doc's recipes are found without a list to update. */
const FILES = execFileSync('git', ['ls-files', '*.md'], { encoding: 'utf8' }).split('\n').filter(Boolean);

const recipesOf = (file: string): Recipe[] => {
  const lines = readFileSync(file, 'utf8').split('\n');
  const recipes: Recipe[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)```(sh|bash|shell)\s*$/.exec(lines[i]!);
    if (!fence) continue;
    const marker = /<!-- recipe: (aws|not-run|record)\b/.exec(lines[i - 1] ?? '')?.[1] as Recipe['kind'] | undefined;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]!); j++) body.push(lines[j]!.slice(fence[1]!.length));
    recipes.push({ file, line: i + 1, kind: marker ?? 'local', code: body.join('\n') });
    i = j;
  }
  return recipes;
};
const RECIPES = FILES.flatMap(recipesOf);
const nameOf = (r: Recipe) => `${r.file}:${r.line}: ${r.code.split('\n')[0]}`;

/** The tests' environment without AWS settings of its own: a reader's shell has none of ours. */
const OWN_ENV = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_')));

const run = (command: string, args: string[], env: Record<string, string> = {}) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      command,
      args,
      { env: { ...OWN_ENV, ...env }, timeout: 240_000, maxBuffer: 1 << 24 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );

/** The commands of a recipe: its lines with continuations joined, comments and blank lines dropped. */
const commandsOf = (code: string): string[] =>
  code
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

/** `npm run <script> -- <args>` (after any VAR=value words), or npm's own `start`/`test`/`ci`. */
const npmCall = (command: string): { script: string; flags: string[] } | undefined => {
  const words = command.replace(/^(\w+=\S+\s+)+/, '').split(/\s+/);
  if (words[0] !== 'npm') return undefined;
  const script = words[1] === 'run' ? words[2]! : words[1]!;
  const afterDashes = words.indexOf('--');
  const flags = afterDashes < 0 ? [] : words.slice(afterDashes + 1).filter((w) => w.startsWith('--'));
  return { script, flags: flags.map((f) => f.replace(/=.*/, '')) };
};
const SCRIPTS = Object.keys((JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: object }).scripts);
const NPM_OWN = new Set(['ci', 'install', 'start', 'test']);

let server: LocalServer;
let origin: string;
beforeAll(async () => {
  server = await startServer();
  origin = new URL(server.baseUrl).origin;
  // More animals than one page of the paging recipe (limit=20), so that it has a next page.
  for (let i = 0; i < 25; i++) await createPet(server, { name: `Paged ${i}`, categoryId: 1 });
});
afterAll(() => disposeServer(server));

/** Runs a local recipe as a reader would: the server's address and key in place of the examples. */
const runLocal = (recipe: Recipe) =>
  run('bash', ['-c', recipe.code.replaceAll('http://127.0.0.1:3000', origin).replaceAll('pet_…', server.key)], {
    BASE: server.baseUrl,
    KEY: server.key,
    PETSTORE_DATA_DIR: server.dataDir,
  });

type Result = Awaited<ReturnType<typeof run>>;
// curl -si prints each body without a newline after it: the next status line follows it directly.
const statusLines = (stdout: string) => [...stdout.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));

/** What each local recipe must do, by its file and first line: a recipe without one fails. */
const CHECKS: Record<string, (result: Result) => void> = {
  'README.md: BASE=http://127.0.0.1:3000/v1': ({ stdout }) => {
    const [created, listed, got] = statusLines(stdout);
    expect([created, listed], stdout).toEqual([201, 200]);
    expect(stdout).toMatch(/^location: \S*\/v1\/pets\/\d+/im);
    expect(stdout).toMatch(/"name":"Rex"/);
    // Id 1 may or may not exist: either way the deprecated operation's headers.
    expect([200, 404]).toContain(got);
    expect(stdout).toMatch(/^deprecation: @\d+/im);
    expect(stdout).toMatch(/^sunset: Thu, 05 Dec 2030 00:00:00 GMT/im);
  },
  'README.md: link=$(curl': ({ stdout }) => {
    // The second page: animals, not the origin's 404 that an empty link led to.
    const page = JSON.parse(stdout) as Array<{ id: number }>;
    expect(Array.isArray(page), stdout).toBe(true);
    expect(page.length).toBeGreaterThan(0);
  },
  'README.md: RETRY_KEY=$(node': ({ stdout }) => {
    expect(statusLines(stdout)).toEqual([201]);
    expect(stdout).not.toMatch(/^idempotent-replayed/im);
  },
  'README.md: PETSTORE_SMOKE_KEY=pet_… npm run smoke -- --base-url': ({ stdout }) => {
    expect(stdout).toMatch(/^\d+ passed, 0 failed, \d+ skipped$/m);
  },
  'README.md: npx cdk synth -e PetStore-staging --quiet': () => {
    expect(existsSync('cdk.out/PetStore-staging.template.json')).toBe(true);
  },
  // test/e2e/inspect-store.test.ts holds it to more: the animals read, dead once the server stops.
  'README.md: export AWS_CONFIG_FILE=': ({ stdout }) => {
    expect(stdout).toMatch(/"pets"/);
    expect(stdout).toMatch(/"Paged \d+"/);
  },
  'docs/keys.md: npm run keys -- --help': ({ stdout }) => {
    expect(stdout).toMatch(/^Usage: npm run keys --/m);
  },
  'docs/keys.md: npm run keys -- create --label "mobile app"': ({ stdout }) => {
    expect(stdout.match(/^Created key_\w+ on stage local/gm)).toHaveLength(3);
    expect(stdout).toMatch(/label: dashboard, scope: read, expires/);
  },
  'client/README.md: PETSTORE_BASE_URL=http://127.0.0.1:3000/v1': ({ stdout }) => {
    expect(stdout).toMatch(/^created: id \d+, status available$/m);
  },
};
const checkOf = (r: Recipe) =>
  Object.entries(CHECKS).find(([name]) => {
    const [file, start] = [name.slice(0, name.indexOf(': ')), name.slice(name.indexOf(': ') + 2)];
    return file === r.file && r.code.startsWith(start);
  })?.[1];

it('finds the recipes: every file with a ```sh block, each of a known kind', () => {
  expect(RECIPES.length).toBeGreaterThan(30);
  expect(new Set(RECIPES.map((r) => r.file))).toEqual(
    new Set([
      'README.md',
      'docs/deploying.md',
      'docs/keys.md',
      'docs/runbook.md',
      'client/README.md',
      'test/cdk/support/resource-schemas/README.md',
    ]),
  );
  expect(RECIPES.filter((r) => r.kind === 'local').length).toBeGreaterThanOrEqual(Object.keys(CHECKS).length);
});

describe.each(RECIPES.filter((r) => r.kind === 'local').map((r) => [nameOf(r), r] as const))('%s', (_name, recipe) => {
  it('runs against npm start and does what the doc says', async () => {
    const check = checkOf(recipe);
    expect(check, 'a recipe that runs here needs a check in CHECKS').toBeDefined();
    const result = await runLocal(recipe);
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    check!(result);
  }, 300_000);
});

/** Each tool's --help, once: the flags it takes. */
const helpOf = new Map<string, Promise<Result>>();
const help = (args: string[]) => {
  const key = args.join(' ');
  if (!helpOf.has(key)) helpOf.set(key, run(args[0]!, [...args.slice(1), '--help']));
  return helpOf.get(key)!;
};

describe.each(RECIPES.filter((r) => r.kind === 'aws').map((r) => [nameOf(r), r] as const))(
  '%s (needs AWS)',
  (_name, recipe) => {
    it('is valid shell, and its npm scripts and cdk commands take the flags it gives them', async () => {
      // `<last good commit>`, `<id>`: the reader's own values, a word each.
      const syntax = await run('bash', ['-n', '-c', recipe.code.replace(/<[a-z][\w ]*>/gi, 'VALUE')]);
      expect(syntax.code, syntax.stderr).toBe(0);
      for (const command of commandsOf(recipe.code)) {
        const npm = npmCall(command);
        if (npm && !NPM_OWN.has(npm.script)) {
          expect(SCRIPTS, command).toContain(npm.script);
          const { stdout } = await help(['npm', 'run', '-s', npm.script, '--']);
          for (const flag of npm.flags) expect(stdout, `${command}: ${flag}`).toContain(flag);
        }
        const cdk = /\bnpx cdk (\w+)(.*)$/.exec(command);
        if (cdk) {
          const { stdout, code } = await help(['npx', 'cdk', cdk[1]!]);
          expect(code, command).toBe(0);
          const flags = [...cdk[2]!.matchAll(/\s(--?[a-z][\w-]*)/g)].map((m) => m[1]!);
          for (const flag of flags) expect(stdout, `${command}: ${flag}`).toMatch(new RegExp(`${flag}\\b`));
        }
      }
    }, 120_000);
  },
);

describe.each(RECIPES.filter((r) => r.kind === 'not-run').map((r) => [nameOf(r), r] as const))(
  '%s (not run)',
  (_name, recipe) => {
    it('names npm scripts that exist', () => {
      for (const command of commandsOf(recipe.code).flatMap((c) => c.split('&&').map((part) => part.trim()))) {
        const npm = npmCall(command);
        expect(npm, command).toBeDefined();
        if (!NPM_OWN.has(npm!.script)) expect(SCRIPTS, command).toContain(npm!.script);
      }
    });
  },
);

describe.each(RECIPES.filter((r) => r.kind === 'record').map((r) => [nameOf(r), r] as const))(
  '%s (a record, not run)',
  (_name, recipe) => {
    it('is valid shell, and each program it runs is on PATH', async () => {
      const syntax = await run('bash', ['-n', '-c', recipe.code]);
      expect(syntax.code, syntax.stderr).toBe(0);
      // The first word of each command and of each stage of a pipeline (quoted text is an argument).
      const programs = commandsOf(recipe.code).flatMap((c) =>
        c
          .replace(/'[^']*'|"[^"]*"/g, "''")
          .split(/\|\|?|&&|;/)
          .map((stage) => stage.trim().split(/\s+/)[0]!),
      );
      for (const program of new Set(programs)) {
        const found = await run('bash', ['-c', `command -v ${program}`]);
        expect(found.code, `${program} is not on PATH`).toBe(0);
      }
    });
  },
);
