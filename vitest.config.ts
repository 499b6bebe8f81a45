import { defineConfig } from 'vitest/config';

// Each test file runs in its own forked process with its own databases (see packages/server/test/harness.ts).
export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    pool: 'forks',
    // Two files at a time: most of a file's time is spent waiting on child processes, databases and the
    // browser, so two share the two cores of a CI machine well (the default is cores - 1: one at a time).
    maxWorkers: 2,
    globalSetup: ['packages/server/test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
