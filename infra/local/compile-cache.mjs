// Turns on Node's module compile cache for the local server (`node --import` in package.json's
// `start` and `dev`; `npm run dev`'s generations inherit the flag). It keeps each module's
// type-stripped source and its V8 code between starts, so that from the second start on Node loads
// no TypeScript stripper (amaro, a WASM module that then stays resident: 18 MB of RSS,
// docs/performance.md, "Memory") and compiles nothing again. Plain JavaScript because it must run
// before Node strips any TypeScript. The cache lives in the project's node_modules/.cache, not
// under the shared temporary directory (Node's default), where another local user could lay down
// code for this server to run. An entry whose source changed is compiled again; a cache that
// cannot be written is skipped (the server starts as without it).
import { enableCompileCache } from 'node:module';
import { fileURLToPath } from 'node:url';

enableCompileCache(fileURLToPath(new URL('../../node_modules/.cache/petstore', import.meta.url)));
