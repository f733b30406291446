/** A run's durable record, as the run sees it (runs/seams.ts, RunLedger), over the run and thread tables. */
import type { Database } from './database';
import {
  clearDraftMessages,
  insertRunSteps,
  listThreadRuns,
  mayPostAnswer,
  recordAnswerPosted,
  recordCurrentStep,
  recordDraftMessage,
  recordStatusMessage,
} from './run-store';
import { rememberSlackNames, type SlackName } from './slack-name-store';
import { getThreadById } from './thread-store';
import { claimApprovedCall, listRunApprovals, parkRun, recordApprovalMessage, type ApprovalRow, type ParkRequest } from './approval-store';
import { getRun } from './run-store';
import type { ApprovalDecision, ApprovalPrompt } from '../core/approval';
import type { CurrentStep, RunStepRecord } from '../core/run-step';

/** A run giving up its lease to wait for decisions on these calls. */
export type LedgerParkRequest = Omit<ParkRequest, 'calls'> & { calls: Array<{ callId: string } & ApprovalPrompt> };

export function createRunLedger(db: Database) {
  return {
    thread: (threadId: number) => getThreadById(db, threadId),
    earlierRuns: (threadId: number) => listThreadRuns(db, threadId),
    mayPost: (runId: number, owner: string) => mayPostAnswer(db, runId, owner),
    recordStatusMessage: (runId: number, ts: string | null) => recordStatusMessage(db, runId, ts),
    recordDraft: (runId: number, ts: string) => recordDraftMessage(db, runId, ts),
    clearDrafts: (runId: number) => clearDraftMessages(db, runId),
    recordAnswer: (runId: number, answerTs: string[]) => recordAnswerPosted(db, runId, answerTs),
    recordSteps: (runId: number, steps: RunStepRecord[]) => insertRunSteps(db, runId, steps),
    recordCurrentStep: (runId: number, owner: string, step: CurrentStep | null, options?: { keepSince?: boolean }) => recordCurrentStep(db, runId, owner, step, options),
    rememberNames: (names: readonly SlackName[]) => rememberSlackNames(db, names),
    drafts: async (runId: number) => (await getRun(db, runId))?.draftTs ?? [],
    async park(request: LedgerParkRequest) {
      const rows = await parkRun(db, {
        ...request,
        calls: request.calls.map((call) => ({ callId: call.callId, tool: call.tool, server: call.server, action: call.action, arguments: call.arguments, hints: call.hints })),
      });
      return rows?.map((row) => ({ id: row.id, callId: row.callId, expiresAt: row.expiresAt }));
    },
    recordApprovalMessage: (approvalId: number, messageTs: string) => recordApprovalMessage(db, approvalId, messageTs),
    async decisions(runId: number) {
      const decisions = new Map<string, ApprovalDecision>();
      for (const row of await listRunApprovals(db, runId)) {
        const decision = decisionOf(db, row);
        if (decision) decisions.set(row.callId, decision);
      }
      return decisions;
    },
  };
}

function decisionOf(db: Database, row: ApprovalRow): ApprovalDecision | undefined {
  const at = row.decidedAt ?? new Date();
  const requestedAt = row.createdAt;
  if (row.status === 'approved') return { status: 'approved', by: row.decidedBy ?? 'someone', at, requestedAt, claim: () => claimApprovedCall(db, row.id) };
  if (row.status === 'denied') return { status: 'denied', by: row.decidedBy ?? 'someone', at, requestedAt };
  if (row.status === 'expired') {
    return { status: 'expired', at, requestedAt, afterMinutes: Math.max(1, Math.round((row.expiresAt.getTime() - row.createdAt.getTime()) / 60_000)) };
  }
  return undefined;
}
