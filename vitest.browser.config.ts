// `npm run test:browser`: the tests that drive a real browser (Debian's chromium, see README),
// apart from `npm test` because they need that browser installed.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 1,
  },
});
