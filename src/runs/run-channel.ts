/**
 * Where a run's answer goes: into its thread (and to the channel too, when the channel's settings say so), addressed
 * to its asker; the ledger is told of every message the channel starts, so that a crash loses none of them.
 */
import type { EffectiveChannelSettings } from '../config/channel-settings';
import type { RunRow } from '../store/run-store';
import type { ThreadRow } from '../store/thread-store';
import type { AnswerChannel, OpenAnswerChannel, RunLedger } from './seams';

export function openRunChannel(
  deps: { answers: OpenAnswerChannel; ledger: Pick<RunLedger, 'recordStatusMessage' | 'recordDraft'> },
  run: RunRow,
  thread: ThreadRow,
  settings: Pick<EffectiveChannelSettings, 'answerVisibility'> | undefined,
): AnswerChannel {
  return deps.answers(
    {
      runId: run.id,
      alsoToChannel: settings?.answerVisibility === 'thread_and_channel',
      channelId: thread.channelId,
      threadTs: thread.threadTs,
      triggerTs: run.triggerTs,
      recipientUserId: run.triggerUserId ?? undefined,
      recipientTeamId: run.teamId || thread.teamId || undefined,
    },
    {
      // A :x: on the status message cancels the run; a draft is found again by an attempt that resumes it.
      onStatusMessage: (ts) => deps.ledger.recordStatusMessage(run.id, ts),
      onAnswerMessage: (ts) => deps.ledger.recordDraft(run.id, ts),
    },
  );
}
