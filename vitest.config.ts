import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // dist/ rebuilt when stale: the tests that start the real process run it (test/support/bot-entry.ts).
    globalSetup: ['./test/support/build-dist.ts'],
    // The default output, then one line when the corpus tier (real documents by others, CORPUS_DIR) was left out.
    reporters: ['default', './test/support/corpus-reporter.ts'],
    // PGlite instances and worker pools are heavy; two cores on CI.
    pool: 'forks',
    maxWorkers: 2,
    // Lets a test collect garbage on purpose, to prove that what a run made is released (test/runs/answer-run-lifetime).
    execArgv: ['--expose-gc'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
