/**
 * The order test files start in: the longest first, then vitest's own order. Vitest orders by the durations it
 * cached on an earlier run, and with none (a fresh clone, as CI is) by file size — which put the kill -9 suites,
 * small files that run longest, last: the whole run then waited on them alone, one core idle. Started first, they
 * run beside everything else.
 *
 * The list is of measured durations (CI's own log on a 2-core machine, 2026-11-28: 100 s down to 31 s), longest
 * first; a file missing from it only starts in vitest's order.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const LONGEST = [
  'test/evals/eval.test.ts',
  'test/reliability/acknowledged-questions.test.ts',
  'test/reliability/crash-recovery.test.ts',
  'test/documents/ocr.test.ts',
  'test/reliability/acknowledged-questions-postgres.test.ts',
  'test/terminal/chat.test.ts',
  'test/app/bot/scheduled-tasks.test.ts',
  'test/documents/pdf-images.test.ts',
];

export default class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = LONGEST.findIndex((name) => file.moduleId.endsWith(name));
      return index === -1 ? LONGEST.length : index;
    };
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
