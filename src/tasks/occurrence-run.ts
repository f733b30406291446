/**
 * The run that answers an occurrence: a pending run row in the task's thread, written inside the claim's
 * transaction, asked by the task's owner (their access, their spend limit). Its trigger is not a Slack message but
 * the occurrence's key, `task:<id>:<due ISO>` — unique per (thread, trigger) like any run's, so even a claim
 * replayed by hand could not make a second run. The run machinery recognises it with `parseOccurrenceTrigger` (no
 * :eyes: reaction, no permalink; the request is `occurrencePrompt`, not a message of the thread).
 */
import type { Database } from '../store/database';
import { insertWaitingRuns } from '../store/run-store';
import { threadKeyOf, upsertThreads } from '../store/thread-store';
import type { ScheduledOccurrence } from './scheduler';

/**
 * `enqueueOccurrences` for createTaskScheduler: each occurrence's pending run, in two statements for the whole
 * batch. Undefined for an occurrence that cannot start yet. One waiting run per thread is the runs' rule: when a
 * person's question already waits in the thread, folding the task into it would answer it as their message; and of
 * several tasks due in one thread, the first takes the thread's waiting run. The others wait (their tasks stay due)
 * and are claimed again once that run started.
 */
export async function insertOccurrenceRuns(occurrences: readonly ScheduledOccurrence[], tx: Database): Promise<Array<number | undefined>> {
  const firstInThread = new Map<string, number>();
  occurrences.forEach(({ task }, index) => {
    const key = threadKeyOf(task);
    if (!firstInThread.has(key)) firstInThread.set(key, index);
  });
  const starting = [...firstInThread.values()].map((index) => occurrences[index]!);
  const threads = await upsertThreads(
    tx,
    starting.map(({ task }) => ({ teamId: task.teamId, channelId: task.channelId, threadTs: task.threadTs, engaged: true })),
  );
  const runs = await insertWaitingRuns(
    tx,
    starting.map(({ task, dueAt }, k) => ({
      threadId: threads[k]!.id,
      triggerTs: occurrenceTrigger(task.id, dueAt),
      triggerUserId: task.ownerId,
      teamId: task.teamId || undefined,
      channelId: task.channelId,
      question: `[scheduled] ${firstLine(task.prompt)}`,
    })),
  );
  const runIdOf = new Map(starting.map((occurrence, k) => [occurrence.occurrenceId, runs[k]?.id]));
  return occurrences.map((occurrence) => runIdOf.get(occurrence.occurrenceId));
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
