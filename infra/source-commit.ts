// The commit the functions are built from, which they name on every line (PETSTORE_COMMIT:
// shared/observability/source-commit.ts): the stack gives it to each deployed function, the local
// stage to its in-process functions. From git, once per process; `-dirty` when the work tree has
// changes that commit does not hold, so that a line never claims code it did not run.
import { execFileSync } from 'node:child_process';
import { SOURCE_COMMIT_ENV } from '../shared/observability/source-commit.ts';
import { REPOSITORY_ROOT } from './repository-root.ts';

const git = (...args: string[]): string =>
  execFileSync('git', args, { cwd: REPOSITORY_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();

let commit: string | undefined;

/** The work tree's commit now, uncached: what `npm run dev` names on each reload, since saves change it. */
export const treeCommit = (): string => {
  try {
    const head = git('rev-parse', '--short=12', 'HEAD');
    return git('status', '--porcelain', '--untracked-files=no') ? `${head}-dirty` : head;
  } catch {
    return 'unknown';
  }
};

/**
 * The abbreviated commit (12 characters), from PETSTORE_COMMIT when it is set (a build that has
 * no .git, such as an export), else from git; `unknown` when neither can tell.
 */
export const buildCommit = (): string => {
  commit ??= process.env[SOURCE_COMMIT_ENV] || treeCommit();
  return commit;
};

/** The functions' variable that names it. */
export const sourceCommitEnvironment = (): Record<string, string> => ({ [SOURCE_COMMIT_ENV]: buildCommit() });
