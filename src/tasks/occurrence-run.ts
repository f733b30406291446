/**
 * The run that answers an occurrence: a pending run row in the task's thread, written inside the claim's
 * transaction, asked by the task's owner (their access, their spend limit). Its trigger is not a Slack message but
 * the occurrence's key, `task:<id>:<due ISO>` — unique per (thread, trigger) like any run's, so even a claim
 * replayed by hand could not make a second run. The run machinery recognises it with `parseOccurrenceTrigger` (no
 * :eyes: reaction, no permalink; the request is `occurrencePrompt`, not a message of the thread).
 */
import type { Database } from '../store/database';
import { insertWaitingRuns } from '../store/run-store';
import { upsertThreads } from '../store/thread-store';
import { OccurrenceDeferred, type ScheduledOccurrence } from './scheduler';

/** `enqueueOccurrence` for createTaskScheduler: the pending run's id. */
export async function insertOccurrenceRun(occurrence: ScheduledOccurrence, tx: Database): Promise<number> {
  const { task } = occurrence;
  const [thread] = await upsertThreads(tx, [{ teamId: task.teamId, channelId: task.channelId, threadTs: task.threadTs, engaged: true }]);
  const [run] = await insertWaitingRuns(tx, [
    {
      threadId: thread!.id,
      triggerTs: occurrenceTrigger(task.id, occurrence.dueAt),
      triggerUserId: task.ownerId,
      teamId: task.teamId || undefined,
      channelId: task.channelId,
      question: `[scheduled] ${firstLine(task.prompt)}`,
    },
  ]);
  // One waiting run per thread is the runs' rule: a person's question already waits there. Folding the task into
  // it would answer it as their message; instead the claim rolls back and is tried again once that run started.
  if (!run) throw new OccurrenceDeferred(`Task ${task.id}'s thread already has a waiting run; its occurrence waits for that run to start.`);
  return run.id;
}

export function occurrenceTrigger(taskId: number, dueAt: Date): string {
  return `task:${taskId}:${dueAt.toISOString()}`;
}

/** The task and due time of a run's trigger when the run answers a scheduled occurrence; undefined for a Slack message. */
export function parseOccurrenceTrigger(triggerTs: string): { taskId: number; dueAt: Date } | undefined {
  const match = /^task:(\d+):(.+)$/.exec(triggerTs);
  if (!match) return undefined;
  const dueAt = new Date(match[2]!);
  return Number.isNaN(dueAt.getTime()) ? undefined : { taskId: Number(match[1]), dueAt };
}

function firstLine(text: string): string {
  const line = text.split('\n').map((part) => part.trim()).find(Boolean) ?? '';
  return line.length > 180 ? `${line.slice(0, 179)}…` : line;
}
