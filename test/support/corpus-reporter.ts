/**
 * Ends a test run with one line when the corpus tier was left out: how many tests, what the corpus is, where it was
 * looked for and where each file comes from (evals/fixtures/corpus-sources.tsv). Corpus-tier tests are those under a
 * describe (or test) whose name starts with "corpus:".
 */
import type { Reporter, TestModule } from 'vitest/node';
import { corpusDirectory, corpusTierNotice, isCorpusAt } from '../../evals/fixtures/corpus';

export default class CorpusReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const dir = corpusDirectory();
    if (isCorpusAt(dir)) return;
    let leftOut = 0;
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        if (test.result().state === 'skipped' && /(^| > )corpus:/.test(test.fullName)) leftOut++;
      }
    }
    if (leftOut) process.stdout.write(`\n${corpusTierNotice(`${leftOut} test${leftOut === 1 ? '' : 's'}`, dir)}\n`);
  }
}
