// Bundled in place of `node:process` wherever a bundled module imports it as an ES module
// (api-function.ts, esbuild alias): the SDK's user agent (`import { env } from 'node:process'`,
// `import { versions } …`), in every bundle, the floor's too. Node builds the ES module facade of a
// built-in by reading every export, and process's include the lazy getters stdin, stdout and
// stderr: the import opened all three before any code ran. This is the same process object, as
// every module already has it, without the facade. What it saves a cold start: docs/performance.md,
// "Functions alone" (the bundle without this alias, `npm run bench:cold`).
export default process;
// The named imports bundled modules make; a new one fails the build, never silently.
export const { env, versions } = process;
