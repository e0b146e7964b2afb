// The commit the running code was built from, as the stack (infra/constructs/functions.ts) and
// the local stage (infra/local/function-environment.ts) give it to each function: on every
// request's line and on the deploy marker, so that "did this start with a release?" is one query.

/** The variable that names it. */
export const SOURCE_COMMIT_ENV = 'PETSTORE_COMMIT';

let commit: string | undefined;
/** Fixed for the life of the container: read once, on first use (the local stage sets it at start). */
export const sourceCommit = (): string => (commit ??= process.env[SOURCE_COMMIT_ENV] || 'unknown');
