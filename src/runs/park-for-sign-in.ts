/**
 * A run whose agent stopped because a tool needs the speaker's own account (SignInRequired, core/sign-in.ts): like
 * park-for-approval.ts, the half-streamed preamble goes, the run is parked durably (no lease; its turn saved; status
 * waiting_approval — it waits for a person), bound to the sign-in request of each waiting call, and that person —
 * only that person — gets a private Connect prompt in the thread. The OAuth callback (slack/oauth-callback.ts), on
 * whichever replica, completes the sign-in once and makes the run resumable; one worker claims it and the waiting
 * calls run again with the new token. The authorization URL goes into the private prompt only: never into the
 * saved turn, a run step or a log line.
 */
import type { AgentTurnResult, ParkedTurn } from '../agent/run-agent-turn';
import type { AwaitingCall } from '../core/approval';
import type { RunStepRecord } from '../core/run-step';
import type { SignInPrompt } from '../core/sign-in';
import type { Logger } from '../logging/logger';
import type { RunRow } from '../store/run-store';
import type { ThreadRow } from '../store/thread-store';
import { RunInterrupted } from './run-interrupted';
import type { AnswerChannel, RunLedger } from './seams';

/** The run's durable side of a sign-in (store/sign-in-store.ts parkRunForSignIn, bound to the database). */
export interface SignInLedger {
  /** Gives the run up to wait for sign-ins; false when this owner lost it meanwhile. */
  parkForSignIn(request: {
    runId: number;
    owner: string;
    turn: ParkedTurn;
    requests: Array<{ requestId: number; callId: string }>;
    costs: SignInParkContext['costs'];
    /** The servers waited for: the run's current step while it waits ({ kind: 'sign_in', names }). */
    servers?: string[];
  }): Promise<boolean>;
}

/** Shows the person a private Connect prompt in the thread (slack/connect-prompt.ts postConnectPrompt). */
export type SignInPrompter = (target: { channelId: string; threadTs: string }, prompt: SignInPrompt) => Promise<void>;

export interface SignInParkContext {
  run: RunRow;
  thread: ThreadRow;
  channel: Pick<AnswerChannel, 'retireDrafts' | 'status'>;
  ledger: Pick<RunLedger, 'drafts'>;
  signIns: SignInLedger;
  prompt: SignInPrompter;
  costs: { model?: string; strategy?: string; inputTokens?: number; outputTokens?: number; iterations?: number; costUsd?: number };
  logger: Logger;
}

/** The waiting calls that wait for a sign-in (the others wait for an approval: park-for-approval.ts). */
export function signInCalls(awaiting: NonNullable<AgentTurnResult['awaiting']>): Array<AwaitingCall & { signIn: SignInPrompt }> {
  return awaiting.calls.filter((call): call is AwaitingCall & { signIn: SignInPrompt } => call.signIn !== undefined);
}

export async function parkForSignIn(context: SignInParkContext, awaiting: NonNullable<AgentTurnResult['awaiting']>): Promise<{ status: 'waiting_approval' }> {
  const { run, thread, channel, ledger, logger } = context;
  const calls = signInCalls(awaiting);
  const drafts = await ledger.drafts(run.id);
  if (drafts.length > 0) await channel.retireDrafts(drafts, undefined);
  const parked = await context.signIns.parkForSignIn({
    runId: run.id,
    owner: run.leaseOwner ?? '',
    turn: awaiting.turn,
    requests: calls.map((call) => ({ requestId: call.signIn.requestId, callId: call.callId })),
    costs: context.costs,
    servers: [...new Set(calls.map((call) => call.signIn.server))],
  });
  if (!parked) throw new RunInterrupted('lease_lost');
  await channel.status.clear();
  // One prompt per person and server, however many calls wait on it.
  const prompted = new Set<string>();
  for (const { signIn } of calls) {
    const key = `${signIn.teamId}\0${signIn.userId}\0${signIn.server}`;
    if (prompted.has(key)) continue;
    prompted.add(key);
    try {
      await context.prompt({ channelId: thread.channelId, threadTs: thread.threadTs }, signIn);
    } catch (error) {
      // The run stays parked; the sign-in expires unasked and the call is then told the person did not connect.
      logger.error('could not show the Connect prompt in the thread', { server: signIn.server, userId: signIn.userId, error });
    }
  }
  logger.info('run waits for a sign-in', { calls: calls.map((call) => call.callId), servers: [...new Set(calls.map((call) => call.signIn.server))] });
  return { status: 'waiting_approval' };
}

/**
 * The run's record of the sign-ins it asked for (with parking) and of the connection made (when it carries on):
 * the person and the server, never the link. Recorded as approval_request / approval_decision steps with
 * `signIn: <server>` in their arguments.
 */
export function signInSteps(
  turn: ParkedTurn,
  record: { requested: Array<AwaitingCall & { signIn: SignInPrompt }> } | { connected: Array<{ callId: string; server: string; userId: string; at: Date }> },
): RunStepRecord[] {
  if ('requested' in record) {
    return record.requested.map((call) => ({
      kind: 'approval_request' as const,
      name: call.prompt.tool,
      iteration: turn.iteration,
      arguments: { callId: call.callId, signIn: call.signIn.server, person: call.signIn.userId },
      durationMs: 0,
    }));
  }
  return record.connected.map((connected) => ({
    kind: 'approval_decision' as const,
    name: turn.calls.find((call) => call.id === connected.callId)?.name ?? connected.server,
    iteration: turn.iteration,
    arguments: { callId: connected.callId, signIn: connected.server, decision: 'connected', by: connected.userId, at: connected.at.toISOString() },
    durationMs: 0,
  }));
}

/** Sign-ins nobody finished within 10 minutes: expired, and their runs woken (the call then says so). */
export async function expireWaitingSignIns(deps: { expire(): Promise<Array<{ runId: number | null }>>; onRunResumable(): void; logger: Logger }): Promise<void> {
  const expired = await deps.expire();
  const runs = [...new Set(expired.flatMap((row) => (row.runId === null ? [] : [row.runId])))];
  if (runs.length > 0) {
    deps.logger.info('sign-ins expired unused', { runs });
    deps.onRunResumable();
  }
}
