import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Tests start real servers on loopback and share one Redis: keep files in
    // separate workers but bounded, sized for a 2-core machine.
    maxWorkers: 2,
  },
});
