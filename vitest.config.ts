import { defineConfig } from 'vitest/config';

// Each test file runs in its own forked process with its own databases (see packages/server/test/harness.ts).
export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    pool: 'forks',
    // Two files at a time (the default is cores - 1: one at a time on a 2-core CI machine). A file's own
    // process, its child processes, databases and browser together keep both cores busy: 94 % on average
    // over a full run on a slow 2-core machine (2026-11-29). Four at a time there kept them 100 % busy,
    // the six longest files took 1.4 to 3.5 times as long, and three of webhooks.test's timed deliveries failed.
    maxWorkers: 2,
    // Each file keeps its own process (the default isolation). With `--no-isolate` (measured 2026-11-29) the
    // suite took 1,140 s instead of 654 s, as each worker kept every earlier file's databases and heap, and
    // five files failed on state another file left behind (prepared statements, per-handle caches, a mock).
    globalSetup: ['packages/server/test/global-setup.ts'],
    testTimeout: 30_000,
    // A page or a process polled for a change gets 10 s, not the default 1 s: on a loaded machine a render
    // or a settlement can take longer than a second without anything being wrong.
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
