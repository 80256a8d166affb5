import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Loopback servers and real builds make some tests slow on 2 cores; speed is measured in bench/, not here.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
