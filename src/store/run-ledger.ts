/** A run's durable record, as the run sees it (runs/seams.ts, RunLedger), over the run and thread tables. */
import type { Database } from './database';
import {
  clearDraftMessages,
  insertRunSteps,
  listThreadRuns,
  mayPostAnswer,
  recordAnswerPosted,
  recordDraftMessage,
  recordStatusMessage,
} from './run-store';
import { getThreadById } from './thread-store';
import type { RunStepRecord } from '../core/run-step';

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
  };
}
