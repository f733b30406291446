/**
 * An attempt that threw: cancelled by a person (said in the thread), interrupted by a shutdown or a lost lease (left
 * for the replica that resumes it), or failed (a sentence in the thread saying what went wrong, when this worker
 * still holds the run).
 */
import { messageOf } from '../core/errors';
import type { Logger } from '../logging/logger';
import type { RunOutcome, RunRow } from '../store/run-store';
import { describeFailure } from './describe-failure';
import { RunInterrupted } from './run-interrupted';
import type { RunCostTally } from './run-cost';
import type { AnswerChannel, RunLedger } from './seams';

export interface FailedAttempt {
  run: RunRow;
  channel: AnswerChannel;
  ledger: RunLedger;
  signal: AbortSignal;
  cost: RunCostTally;
  /** Throws RunInterrupted when another worker holds the run now: nothing goes into the thread then. */
  assertStillOwner(): Promise<void>;
  logger: Logger;
}

export async function endFailedAttempt(attempt: FailedAttempt, error: unknown): Promise<RunOutcome> {
  const { run, channel, ledger, signal, cost, logger } = attempt;
  await channel.status.clear();
  const reason = signal.reason ?? (error instanceof RunInterrupted ? error : undefined);
  if (reason instanceof RunInterrupted && reason.kind === 'cancelled') {
    const answerTs = await channel.answer.fail('_Stopped: this answer was cancelled._').catch(() => []);
    return { status: 'cancelled', error: 'cancelled by a user', answerTs, ...cost.totals() };
  }
  if (reason instanceof RunInterrupted) throw error; // shutdown or lost lease: the run is resumed elsewhere
  logger.error('answer failed', { error });
  await attempt.assertStillOwner();
  const answerTs = await channel.answer.fail(describeFailure(error)).catch((postError) => {
    logger.error('could not tell the thread about the failure', { error: postError });
    return [] as string[];
  });
  if (answerTs.length) await ledger.recordAnswer(run.id, answerTs).catch(() => {});
  return { status: 'failed', error: messageOf(error), answerTs, ...cost.totals() };
}
