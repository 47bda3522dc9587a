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
    // Tests breach expression budgets on purpose, again and again: a tool suspended after five
    // would answer the sixth with tool.suspended. The tests of suspension set it themselves.
    env: { SCULPTOR_TOOL_SUSPEND_BREACHES: '0' },
  },
});
