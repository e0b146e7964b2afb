import { configDefaults, defineConfig } from 'vitest/config';

// `npm test` runs four kinds of test, one folder each (README, "Tests"):
//   test/unit         pure code, in process
//   test/integration  real components in process: dynalite over HTTP, the emulated gateway, the handlers
//   test/e2e          over HTTP against the local server (`npm start`) or the project's commands
//   test/cdk          synthesized templates and bundles
// test/browser needs chromium and runs apart (`npm run test:browser`, vitest.browser.config.ts).
export default defineConfig({
  test: {
    include: ['test/{unit,integration,e2e,cdk}/**/*.test.ts'],
    exclude: [...configDefaults.exclude, 'test/browser/**'],
    // End-to-end files start real servers: generous, but bounded.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: two files at a time keeps servers from starving each other.
    maxWorkers: 2,
    // CDK's "Bundling asset …" lines, and only those, are not printed (the file says why); a raw
    // log line or a key written by a test file fails it (no-stray-output.ts).
    setupFiles: ['test/support/quiet-bundling.ts', 'test/support/no-stray-output.ts'],
  },
});
