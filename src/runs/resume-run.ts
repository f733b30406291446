/**
 * A run picked up again after its attempt died (crash, kill, lost lease): what that attempt left in the thread is
 * sorted out before anything new is written.
 */
import { STATUS_EVENT, type BotIdentity, type SlackMessage } from '../conversation';
import type { Logger } from '../logging/logger';
import type { RunOutcome, RunRow } from '../store/run-store';
import { findPostedAnswer } from './find-posted-answer';
import type { AnswerChannel, RunLedger, ThreadNote } from './seams';

const RESUMING_NOTE = '_I was interrupted while answering — picking this up again now._';
/** A run interrupted this often is likely what kills the process: stop trying. */
const MAX_ATTEMPTS = 3;

export interface ResumeContext {
  run: RunRow;
  bot: BotIdentity;
  channel: AnswerChannel;
  ledger: RunLedger;
  /** Throws when this worker no longer holds the run. */
  assertStillOwner(): Promise<void>;
  logger: Logger;
}

/**
 * Either the run's outcome (its answer was posted before the interruption, or it gives up), or the thread's
 * messages to answer from, without the half-written answer of the attempt that died.
 */
export async function resumeInterruptedRun(
  context: ResumeContext,
  messages: SlackMessage[],
): Promise<{ outcome: RunOutcome } | { messages: SlackMessage[] }> {
  const { run, channel, ledger, logger } = context;
  // Died after posting but before recording it: the answer is in the thread, so only the record is missing.
  const posted = findPostedAnswer(messages, run.id, context.bot);
  if (posted.length > 0) {
    await ledger.recordAnswer(run.id, posted);
    await channel.status.clear();
    logger.info('the answer was already posted before the interruption; not posting again', { answerTs: posted });
    return { outcome: { status: 'done', answerTs: posted } };
  }
  // Half an answer from the attempt that died: retired (it becomes the resuming note, or goes when the run gives
  // up), and never read back as something said.
  const drafts = run.draftTs.filter((ts) => messages.some((message) => message.ts === ts));
  const remaining = messages.filter((message) => !drafts.includes(message.ts));
  const givingUp = run.attempts > MAX_ATTEMPTS;
  const note: ThreadNote | undefined = givingUp
    ? undefined
    : { text: RESUMING_NOTE, metadata: { event_type: STATUS_EVENT, event_payload: { run_id: run.id } } };
  await context.assertStillOwner();
  const noted = await channel.retireDrafts(drafts, note);
  if (run.draftTs.length > 0) await ledger.clearDrafts(run.id);
  if (givingUp) {
    await channel.status.clear();
    const answerTs = await channel.answer
      .fail(`Sorry — I was interrupted ${run.attempts - 1} times while answering this, so I’ve stopped trying. Please ask again; if it keeps happening, tell the team that runs me.`)
      .catch(() => [] as string[]);
    return { outcome: { status: 'failed', error: `gave up after ${run.attempts - 1} interrupted attempts`, answerTs } };
  }
  if (note && !noted) await channel.post(note);
  return { messages: remaining };
}
