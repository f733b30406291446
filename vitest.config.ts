import { defineConfig } from 'vitest/config';
import LongFilesFirst from './test/support/long-files-first.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // dist/ rebuilt when stale: the tests that start the real process run it (test/support/bot-entry.ts).
    globalSetup: ['./test/support/build-dist.ts'],
    // The default output, then one line when the corpus tier (real documents by others, CORPUS_DIR) was left out.
    reporters: ['default', './test/support/corpus-reporter.ts'],
    // The two-minute files start first, so that no core waits on them alone at the end.
    sequence: { sequencer: LongFilesFirst },
    // PGlite instances and worker pools are heavy; two cores on CI.
    pool: 'forks',
    maxWorkers: 2,
    // Each worker process runs file after file, keeping the modules it loaded (and V8's compiled code for them,
    // PGlite's among it): a fresh process per file cost a fifth of the suite's CPU. Files share no state through
    // modules: every harness, fake and database is made by the test that uses it.
    isolate: false,
    // Lets a test collect garbage on purpose, to prove that what a run made is released (test/runs/answer-run-lifetime).
    execArgv: ['--expose-gc'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
