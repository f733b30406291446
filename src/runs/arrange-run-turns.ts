import { compareTs } from '../conversation';

export interface RunMessages {
  /** The message that asked. */
  triggerTs: string;
  /** Messages that arrived while an earlier run worked, answered by this one. */
  foldedTs: string[];
}

/**
 * The thread's turns as one run must see them. The run answers its own messages (the one that asked and those
 * folded into it), so they go last — after any answer the bot posted while they waited, which the model must read
 * as already said rather than as a reply still owed. People's messages newer than the run's last one belong to
 * the next run and are left out, so the same question is never answered by two runs.
 *
 * Returns undefined when none of the run's messages is in the thread any more (deleted before it was answered).
 */
export function arrangeRunTurns<Turn extends { role: string; ts: string }>(turns: Turn[], run: RunMessages): Turn[] | undefined {
  const own = new Set([run.triggerTs, ...run.foldedTs]);
  const lastOwn = [...own].sort(compareTs).at(-1)!;
  const mine = turns.filter((turn) => own.has(turn.ts));
  if (mine.length === 0) return undefined;
  const before = turns.filter(
    (turn) => !own.has(turn.ts) && (turn.role === 'assistant' || compareTs(turn.ts, lastOwn) < 0),
  );
  return [...before, ...mine];
}
