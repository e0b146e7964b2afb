import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Browser tests need chromium: `npm run test:browser` (vitest.browser.config.ts).
    exclude: [...configDefaults.exclude, 'test/browser/**'],
    // End-to-end files start real servers: generous, but bounded.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: two files at a time keeps servers from starving each other.
    maxWorkers: 2,
  },
});
