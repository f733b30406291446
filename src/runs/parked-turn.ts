import type { ParkedTurn } from '../agent/run-agent-turn';
import type { ApprovalDecision } from '../core/approval';
import type { RunRow } from '../store/run-store';
import type { RunLedger, ThreadSource } from './seams';

/**
 * A run that waited for approval carries on from its saved turn, with the decisions made meanwhile; the model is
 * told who decided by name. Undefined for a run that never waited.
 */
export async function parkedTurnOf(
  run: RunRow,
  deps: { ledger: RunLedger; threads: Pick<ThreadSource, 'names'> },
): Promise<{ turn: ParkedTurn; decisions: ReadonlyMap<string, ApprovalDecision> } | undefined> {
  if (!run.parkedState) return undefined;
  const decisions = await deps.ledger.decisions(run.id);
  const deciders = [...decisions.values()].flatMap((decision) => (decision.status === 'expired' ? [] : [decision.by]));
  const names = await deps.threads.names(deciders);
  const named = new Map([...decisions].map(([callId, decision]) => [callId, decision.status === 'expired' ? decision : { ...decision, by: names.get(decision.by) ?? decision.by }]));
  return { turn: run.parkedState as ParkedTurn, decisions: named };
}
