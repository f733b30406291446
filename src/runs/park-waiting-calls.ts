/**
 * What a run does when the agent stops on calls that wait for someone: for a sign-in, the run parks until its
 * speaker has connected (and only they get the Connect prompt); for a decision, it parks for approval. A call waiting
 * for a sign-in beside calls waiting for a decision just runs again once they are decided (and asks for the sign-in
 * then): only the decisions are asked for now.
 */
import type { AgentTurnResult } from '../agent/run-agent-turn';
import type { RunStepRecord } from '../core/run-step';
import type { Logger } from '../logging/logger';
import type { RunRow } from '../store/run-store';
import type { ThreadRow } from '../store/thread-store';
import { parkForApproval } from './park-for-approval';
import { parkForSignIn, signInCalls, signInSteps, type SignInLedger, type SignInPrompter } from './park-for-sign-in';
import type { ParkedTurn } from '../agent/run-agent-turn';
import type { RunCostTally } from './run-cost';
import type { AnswerChannel, RunLedger } from './seams';

/** Per-person sign-in: parking a run until its speaker has connected, and their private Connect prompt (the edge's). */
export interface RunSignIns {
  ledger: SignInLedger & { completed(runId: number): Promise<Array<{ callId: string; server: string; userId: string; at: Date }>> };
  prompt: SignInPrompter;
}

export interface WaitingCallsContext {
  run: RunRow;
  thread: ThreadRow;
  channel: AnswerChannel;
  ledger: RunLedger;
  signIns: RunSignIns | undefined;
  approvalTimeoutMs: number;
  cost: RunCostTally;
  logger: Logger;
}

export async function parkWaitingCalls(context: WaitingCallsContext, result: AgentTurnResult & { awaiting: NonNullable<AgentTurnResult['awaiting']> }) {
  const { run, thread, channel, ledger, signIns, cost, logger } = context;
  const waitingForSignIn = signIns ? signInCalls(result.awaiting) : [];
  if (signIns && waitingForSignIn.length === result.awaiting.calls.length) {
    signInSteps(result.awaiting.turn, { requested: waitingForSignIn }).forEach(cost.record);
    const costs = { ...cost.totals(), iterations: result.iterations };
    return parkForSignIn({ run, thread, channel, ledger, signIns: signIns.ledger, prompt: signIns.prompt, costs, logger }, result.awaiting);
  }
  const awaiting = waitingForSignIn.length > 0 ? { ...result.awaiting, calls: result.awaiting.calls.filter((call) => !call.signIn) } : result.awaiting;
  return parkForApproval({ run, thread, channel, ledger, approvalTimeoutMs: context.approvalTimeoutMs, cost, logger }, { awaiting, iterations: result.iterations });
}

/** On resuming a run that waited for sign-ins: the connections made meanwhile, as the run's steps. */
export async function recordConnectedSignIns(signIns: RunSignIns | undefined, runId: number, resume: { turn: ParkedTurn } | undefined, record: (step: RunStepRecord) => void) {
  if (!resume || !signIns) return;
  const connected = (await signIns.ledger.completed(runId)).filter((done) => resume.turn.calls.some((call) => call.id === done.callId));
  signInSteps(resume.turn, { connected }).forEach(record);
}
