// What a synthesized Lambda bundle holds: index.mjs and the chunks of esbuild's code splitting
// (infra/constructs/bundled-function.ts), each with its source map.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The sources one module's map names, relative to the bundle's folder as esbuild writes them. */
export const moduleSources = (dir: string, file: string): string[] =>
  (JSON.parse(readFileSync(join(dir, `${file}.map`), 'utf8')) as { sources: string[] }).sources;

/** The sources every module of the bundle in `dir` was built from. */
export const bundleSources = (dir: string): string[] =>
  readdirSync(dir)
    .filter((file) => file.endsWith('.mjs'))
    .flatMap((file) => moduleSources(dir, file));
