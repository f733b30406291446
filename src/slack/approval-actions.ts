/**
 * Approve and Deny on an approval message. Only the person who asked (or an ADMIN_USERS member) decides; anyone
 * else is told who can. A decision is made once however many clicks arrive on however many replicas; the message
 * then shows who decided and when, and the run carries on once nothing it waits for is pending.
 */
import type { WebClient } from '@slack/web-api';
import type { ApprovalPrompt } from '../core/approval';
import type { Logger } from '../logging/logger';
import { decideApproval, expireApprovals, getApproval, type ApprovalRow } from '../store/approval-store';
import type { Database } from '../store/database';
import { APPROVE_ACTION_ID, DENY_ACTION_ID, DETAILS_ACTION_ID, renderApprovalDecided, renderApprovalDetails, type ApprovalOutcome } from './approval-message';
import type { BlockActionArgs, SlackListenerHost } from './listeners';

export interface ApprovalActionDependencies {
  db: Database;
  /** ADMIN_USERS: may decide any call. */
  admins: readonly string[];
  timeZone: string;
  logger: Logger;
  /** A run waits for nothing any more: look for work now. */
  onRunResumable(): void;
}

export function registerApprovalActions(app: SlackListenerHost, deps: ApprovalActionDependencies): void {
  const decide = (decision: 'approved' | 'denied') =>
    async ({ ack, action, body, client }: BlockActionArgs) => {
      await ack();
      const approvalId = Number(action.value);
      const userId = body.user.id;
      const channel = body.channel?.id;
      const threadTs = body.message?.thread_ts;
      if (!Number.isSafeInteger(approvalId) || !userId) return;
      const tell = (text: string) =>
        channel ? client.chat.postEphemeral({ channel, user: userId, thread_ts: threadTs, text }).then(() => undefined, () => undefined) : Promise.resolve();

      const approval = await getApproval(deps.db, approvalId);
      if (!approval) return tell('That request is gone: its answer was deleted. Ask me again if you still need it.');
      if (userId !== approval.requestedBy && !deps.admins.includes(userId)) {
        const who = approval.requestedBy ? `<@${approval.requestedBy}> (who asked)` : 'the person who asked';
        return tell(`Only ${who} or an admin can approve or deny this.`);
      }
      const result = await decideApproval(deps.db, approvalId, decision, userId);
      if (!result.decided) {
        const current = result.approval;
        if (current?.status === 'pending') return tell('That request has expired; the answer goes on without it.');
        return tell(current?.decidedBy ? `Already ${current.status} by <@${current.decidedBy}>.` : `That request has ${current?.status ?? 'ended'}.`);
      }
      deps.logger.info('tool call decided', { approvalId, runId: approval.runId, tool: approval.tool, decision, by: userId });
      await showOutcome(client, result.approval, { status: decision, by: userId, at: result.approval.decidedAt ?? new Date() }, deps);
      if (result.runResumable) deps.onRunResumable();
    };
  app.action(APPROVE_ACTION_ID, decide('approved'));
  app.action(DENY_ACTION_ID, decide('denied'));
  // "Show full arguments": anyone who sees the message may read what it asks to run, in full.
  app.action(DETAILS_ACTION_ID, async ({ ack, action, body, client }) => {
    await ack();
    const approvalId = Number(action.value);
    if (!Number.isSafeInteger(approvalId) || !body.trigger_id) return;
    const approval = await getApproval(deps.db, approvalId);
    if (!approval) {
      if (body.channel?.id) {
        await client.chat
          .postEphemeral({ channel: body.channel.id, user: body.user.id, thread_ts: body.message?.thread_ts, text: 'That request is gone: its answer was deleted.' })
          .catch(() => undefined);
      }
      return;
    }
    await client.views
      .open({ trigger_id: body.trigger_id, view: renderApprovalDetails(promptOf(approval)) })
      .catch((error) => deps.logger.warn('could not show the full arguments of a tool call', { approvalId, error }));
  });
}

function promptOf(approval: ApprovalRow): ApprovalPrompt {
  return {
    tool: approval.tool,
    server: approval.server ?? undefined,
    action: approval.action,
    arguments: approval.arguments,
    hints: approval.hints ?? undefined,
  };
}

/**
 * Expires what nobody decided in time (on every replica; each call expires once), says so on its message, and
 * wakes the runs that wait for nothing any more.
 */
export async function expireWaitingApprovals(client: WebClient, deps: Omit<ApprovalActionDependencies, 'admins'>): Promise<void> {
  const expired = await expireApprovals(deps.db);
  for (const approval of expired) {
    deps.logger.info('tool call expired without a decision', { approvalId: approval.id, runId: approval.runId, tool: approval.tool });
    await showOutcome(client, approval, { status: 'expired', at: approval.decidedAt ?? new Date() }, deps);
  }
  if (expired.length > 0) deps.onRunResumable();
}

async function showOutcome(client: WebClient, approval: ApprovalRow, outcome: ApprovalOutcome, deps: { timeZone: string; logger: Logger }) {
  if (!approval.messageTs) return;
  await client.chat
    .update({ channel: approval.channelId, ts: approval.messageTs, ...renderApprovalDecided(promptOf(approval), outcome, deps.timeZone, approval.id) })
    .catch((error) => deps.logger.warn('could not show the decision on the approval message', { approvalId: approval.id, error }));
}
