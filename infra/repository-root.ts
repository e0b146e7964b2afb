// The repository's root directory, ending in a slash: where the Lambda bundles, the canary's bundle,
// the tests and the benches find the sources. Imports nothing, so that light code (test/cdk's
// synthesis cache) may use it without loading the CDK.
import { fileURLToPath } from 'node:url';

export const REPOSITORY_ROOT = fileURLToPath(new URL('../', import.meta.url));
