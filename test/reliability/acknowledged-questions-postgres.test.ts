/**
 * No acknowledged question is lost when the real process is killed with SIGKILL at many points of a burst of
 * mentions, on PostgreSQL (support/kill-during-burst.ts says how). Needs TEST_DATABASE_URL; without it the suite is
 * skipped with a note.
 */
import { describe } from 'vitest';
import { describeKillsDuringBurst } from './support/kill-during-burst';

if (process.env.TEST_DATABASE_URL) describeKillsDuringBurst('PostgreSQL');
else {
  console.warn('[acknowledged-questions-postgres.test] skipped: set TEST_DATABASE_URL to run it on PostgreSQL');
  describe.skip('killed with -9 during a burst (PostgreSQL)', () => {});
}
