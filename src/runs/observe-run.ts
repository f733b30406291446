/**
 * An attempt as whoever watches runs sees it (traces, through core/run-observer.ts): its start, each step (told by
 * the run's cost tally, ./run-cost.ts) and its end — the outcome, or `interrupted` when it stopped for another
 * attempt to resume.
 */
import { messageOf } from '../core/errors';
import type { RunObservation, RunObserver } from '../core/run-observer';
import type { RunRow } from '../store/run-store';
import type { ThreadRow } from '../store/thread-store';

export async function observeAttempt<Outcome extends { status: string }>(
  observer: RunObserver | undefined,
  { run, thread, model }: { run: RunRow; thread: ThreadRow; model: string },
  attempt: (observation: RunObservation | undefined) => Promise<Outcome>,
): Promise<Outcome> {
  const observation = observer?.runStarted({
    runId: run.id,
    threadId: run.threadId,
    channelId: thread.channelId,
    threadTs: thread.threadTs,
    userId: run.triggerUserId ?? undefined,
    model,
    attempt: run.attempts,
    question: run.question ?? undefined,
  });
  try {
    const outcome = await attempt(observation);
    observation?.finished({ ...outcome, status: outcome.status });
    return outcome;
  } catch (error) {
    observation?.finished({ status: 'interrupted', error: messageOf(error) });
    throw error;
  }
}
