/**
 * A run whose agent stopped for tool calls that need a person's yes: the half-streamed preamble goes, the run is
 * parked durably (no lease; its turn saved), and one message per call asks in the thread. The run carries on,
 * on whichever replica, once every call is decided or expired.
 */
import type { AgentTurnResult } from '../agent/run-agent-turn';
import type { Logger } from '../logging/logger';
import type { RunRow } from '../store/run-store';
import type { ThreadRow } from '../store/thread-store';
import { approvalSteps } from './parked-turn';
import type { RunCostTally } from './run-cost';
import { RunInterrupted } from './run-interrupted';
import type { AnswerChannel, RunLedger } from './seams';

export interface ParkContext {
  run: RunRow;
  thread: ThreadRow;
  channel: AnswerChannel;
  ledger: RunLedger;
  approvalTimeoutMs: number;
  /** The attempt's steps so far: the requests join them, and what the first part cost is recorded with the park. */
  cost: Pick<RunCostTally, 'record' | 'totals'>;
  logger: Logger;
}

export async function parkForApproval(
  context: ParkContext,
  { awaiting, iterations }: { awaiting: NonNullable<AgentTurnResult['awaiting']>; iterations: number },
): Promise<{ status: 'waiting_approval' }> {
  const { run, thread, channel, ledger, logger } = context;
  approvalSteps(awaiting.turn, { requested: awaiting.calls }).forEach(context.cost.record);
  // What streamed before the tool calls was a preamble ("I'll file that…"): the request message says it better.
  const drafts = await ledger.drafts(run.id);
  if (drafts.length > 0) await channel.retireDrafts(drafts, undefined);
  const parked = await ledger.park({
    runId: run.id,
    owner: run.leaseOwner ?? '',
    turn: awaiting.turn,
    calls: awaiting.calls.map((call) => ({ callId: call.callId, ...call.prompt })),
    requestedBy: run.triggerUserId ?? undefined,
    channelId: thread.channelId,
    threadTs: thread.threadTs,
    expiresInMs: context.approvalTimeoutMs,
    costs: { ...context.cost.totals(), iterations },
  });
  if (!parked) throw new RunInterrupted('lease_lost');
  await channel.status.clear();
  for (const approval of parked) {
    const prompt = awaiting.calls.find((call) => call.callId === approval.callId)!.prompt;
    try {
      const ts = await channel.requestApproval({ approvalId: approval.id, prompt, requestedBy: run.triggerUserId ?? undefined, expiresAt: approval.expiresAt });
      if (ts) await ledger.recordApprovalMessage(approval.id, ts);
    } catch (error) {
      // The call stays waiting and expires unasked; the model is then told nobody approved it.
      logger.error('could not ask for approval in the thread', { approvalId: approval.id, tool: prompt.tool, error });
    }
  }
  logger.info('run waits for approval', { calls: parked.map((approval) => approval.callId) });
  return { status: 'waiting_approval' };
}
