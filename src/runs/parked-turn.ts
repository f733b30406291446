import type { ParkedTurn } from '../agent/run-agent-turn';
import type { ApprovalDecision } from '../core/approval';
import type { RunStepRecord } from '../core/run-step';
import type { RunRow } from '../store/run-store';
import type { RunLedger, ThreadSource } from './seams';

/**
 * A run that waited for approval carries on from its saved turn, with the decisions made meanwhile (they go on the
 * run's record through `recordStep`); the model is told who decided by name. Undefined for a run that never waited.
 */
export async function parkedTurnOf(
  run: RunRow,
  deps: { ledger: RunLedger; threads: Pick<ThreadSource, 'names'> },
  recordStep: (step: RunStepRecord) => void,
): Promise<{ turn: ParkedTurn; decisions: ReadonlyMap<string, ApprovalDecision> } | undefined> {
  if (!run.parkedState) return undefined;
  const turn = run.parkedState as ParkedTurn;
  const decisions = await deps.ledger.decisions(run.id);
  const deciders = [...decisions.values()].flatMap((decision) => (decision.status === 'expired' ? [] : [decision.by]));
  const names = await deps.threads.names(deciders);
  void deps.ledger.rememberNames?.([...names].map(([id, name]) => ({ id, kind: 'user' as const, name }))).catch(() => {}); // for the console
  const named = new Map([...decisions].map(([callId, decision]) => [callId, decision.status === 'expired' ? decision : { ...decision, by: names.get(decision.by) ?? decision.by }]));
  approvalSteps(turn, { decided: named }).forEach(recordStep);
  return { turn, decisions: named };
}

/** The run's record of what it asked a person (when it parks) and what they decided (when it carries on). */
export function approvalSteps(
  turn: ParkedTurn,
  record: { requested: Array<{ callId: string; prompt: { tool: string; arguments: unknown } }> } | { decided: ReadonlyMap<string, ApprovalDecision> },
): RunStepRecord[] {
  if ('requested' in record) {
    return record.requested.map(({ callId, prompt }) => ({ kind: 'approval_request', name: prompt.tool, iteration: turn.iteration, arguments: { callId, ...asObject(prompt.arguments) }, durationMs: 0 }));
  }
  return turn.calls.flatMap((call) => {
    const decision = record.decided.get(call.id);
    if (!decision) return [];
    const who = decision.status === 'expired' ? {} : { by: decision.by };
    // The step lasts the wait: from the request to the decision.
    const waited = decision.requestedAt ? { durationMs: Math.max(0, decision.at.getTime() - decision.requestedAt.getTime()), startedAt: decision.requestedAt.getTime() } : { durationMs: 0 };
    return [{ kind: 'approval_decision' as const, name: call.name, iteration: turn.iteration, arguments: { callId: call.id, decision: decision.status, ...who, at: decision.at.toISOString() }, ...waited }];
  });
}

function asObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { arguments: value };
}
