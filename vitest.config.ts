import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // PGlite instances and worker pools are heavy; two cores on CI.
    pool: 'forks',
    maxWorkers: 2,
    // Lets a test collect garbage on purpose, to prove that what a run made is released (test/runs/answer-run-lifetime).
    execArgv: ['--expose-gc'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
