/**
 * What an edge may ask of a run once it is under way: stop it, find the one working on a message, keep a person's
 * verdict on its answer. Declared and implemented here, over the store; the Slack listeners receive it from the
 * composition root, so no edge writes a run's row itself.
 */
import type { Clock } from '../core/clock';
import type { Database } from '../store/database';
import { findActiveRunByMessage, requestCancel, saveFeedback } from '../store/run-store';
import { recordOccurrenceStopped } from '../store/task-store';

/** `cancelled`: it was waiting, and is no more; `flagged`: it stops at its next heartbeat; `finished`: too late. */
type CancelOutcome = 'cancelled' | 'flagged' | 'finished';

export interface RunRequests {
  cancel(runId: number): Promise<CancelOutcome>;
  /** The run not yet finished whose question, status message or folded-in messages include this one, if any. */
  activeRunOn(channelId: string, messageTs: string): Promise<number | undefined>;
  /** A person's 👍 or 👎 on a run's answer; a second one replaces the first. */
  saveFeedback(runId: number, userId: string, value: 'positive' | 'negative'): Promise<void>;
}

export function createRunRequests(db: Database, clock: Pick<Clock, 'now'>): RunRequests {
  return {
    cancel: (runId) =>
      db.transaction(async (tx) => {
        const outcome = await requestCancel(tx as unknown as Database, runId);
        // Stopped before it began: no attempt will run to record a scheduled occurrence's end, so it is recorded here.
        if (outcome === 'cancelled') await recordOccurrenceStopped(tx as unknown as Database, runId, new Date(clock.now()));
        return outcome;
      }),
    activeRunOn: async (channelId, messageTs) => (await findActiveRunByMessage(db, channelId, messageTs))?.id,
    saveFeedback: (runId, userId, value) => saveFeedback(db, runId, userId, value),
  };
}
