// Run in a fresh process by bench/cold-start.ts: imports one module, as the Lambda
// runtime imports a handler at init, and prints how long that took in milliseconds.
import { pathToFileURL } from 'node:url';

const started = performance.now();
await import(pathToFileURL(process.argv[2]!).href);
process.stdout.write(String(performance.now() - started));
