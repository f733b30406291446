/**
 * No acknowledged question is lost when the real process is killed with SIGKILL at many points of a burst of
 * mentions, on the embedded database (support/kill-during-burst.ts says how; its PostgreSQL run is
 * acknowledged-questions-postgres.test.ts).
 */
import { describeKillsDuringBurst } from './support/kill-during-burst';

describeKillsDuringBurst('embedded database');
